#pragma once

#include "domain/WorktreeHooks.h"
#include "http/ApiTypes.h"

#include <QObject>

namespace flotilla {

class HttpServer;
class WorktreeService;

// /api/agents/:id/diff, /review and /merge: an agent's work in its own git worktree (issue 14).
class WorktreeController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(WorktreeController)
public:
    WorktreeController(HttpServer &http, WorktreeService &worktrees, QObject *parent = nullptr);

    // ?deleteBranch=&discard= of DELETE /api/agents/:id and POST /api/agents/bulk/delete:
    // true/false/1/0, absent: false; anything else 400 wrong_type.
    static Result<WorktreeRemoval> removalOf(const ApiRequest &request);

private:
    WorktreeService &m_worktrees;
};

} // namespace flotilla
