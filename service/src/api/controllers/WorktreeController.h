#pragma once
// /api/agents/:id/diff, /review and /merge: an agent's work in its own git worktree.

#include "domain/WorktreeHooks.h"
#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;
class WorktreeService;

class WorktreeController final {
    Q_DISABLE_COPY_MOVE(WorktreeController)
public:
    explicit WorktreeController(WorktreeService &worktrees);

    void registerRoutes(HttpServer &http);

    // ?deleteBranch=&discard= of DELETE /api/agents/:id and POST /api/agents/bulk/delete:
    // true/false/1/0, absent: false; anything else 400 wrong_type.
    static Result<WorktreeRemoval> removalOf(const ApiRequest &request);

private:
    void diff(const ApiRequest &request, const ReplyCallback &done);
    Reply review(const ApiRequest &request);
    void merge(const ApiRequest &request, const ReplyCallback &done);

    WorktreeService &m_worktrees;
};

} // namespace flotilla
