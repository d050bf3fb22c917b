#include "controllers/WorktreeController.h"

#include "http/HttpServer.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "worktrees/WorktreeService.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace wk = wire::worktree::key;
namespace wp = wire::worktree::param;

namespace {

// ?path= of the diff: absent (the whole diff) or a path inside the worktree.
Result<QString> diffPathOf(const ApiRequest &request) {
    const QString path = request.queryValue(wp::Path);
    if (request.hasQuery(wp::Path))
        API_CHECK(checkRelativePath(path, wp::Path));
    return path;
}

} // namespace

Result<WorktreeRemoval> WorktreeController::removalOf(const ApiRequest &request) {
    API_TRY(deleteBranch, request.boolQuery(wp::DeleteBranch, false));
    API_TRY(discard, request.boolQuery(wp::Discard, false));
    return WorktreeRemoval{deleteBranch, discard};
}

WorktreeController::WorktreeController(WorktreeService &worktrees)
    : m_worktrees(worktrees) {
}

void WorktreeController::registerRoutes(HttpServer &http) {
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/diff"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { diff(r, done); });
    http.route(Method::Post, QStringLiteral("/api/agents/:id/review"),
               [this](const ApiRequest &r) { return review(r); });
    http.routeAsync(Method::Post, QStringLiteral("/api/agents/:id/merge"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { merge(r, done); });
}

// GET /api/agents/:id/diff?path= -> 200 {baseCommit, branch, head, files, patch, truncated}
// | 404 | 409 no_worktree | 422 (path) | 500 git_failed
void WorktreeController::diff(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, path, diffPathOf(r));
    m_worktrees.diff(r.param(QStringLiteral("id")), path, [done](const Result<QJsonObject> &diff) {
        done(diff ? Reply::json(*diff) : Reply(diff.error()));
    });
}

// POST /api/agents/:id/review {comments: [{path, line, body}], message?} -> 200 {success,
// agentId, comments, message} | 400 | 404 | 422 | 503 (as POST /api/agents/:id/message)
Reply WorktreeController::review(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(request, parseReview(body));
    const QString id = r.param(QStringLiteral("id"));
    API_TRY(queued, m_worktrees.review(id, request));
    return Reply::json(QJsonObject{
        {k::Success, true},
        {k::AgentId, id},
        {wk::Comments, request.comments.size()},
        {k::Message, queued == 0 ? QStringLiteral("Review sent")
                                 : QStringLiteral("Review queued (position %1)").arg(queued)},
    });
}

// POST /api/agents/:id/merge {strategy, target?, message?} -> 200 {success, strategy, branch,
// target, targetPath, commit, autoCommit, alreadyUpToDate} | 400 | 404 | 409 (agent_working,
// no_worktree, merge_conflict with conflicts, merge_refused) | 422 | 500 git_failed
void WorktreeController::merge(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, body, r.jsonObject());
    API_TRY_ASYNC(done, options, parseMerge(body));
    const QString strategy = options.strategy;
    m_worktrees.merge(
        r.param(QStringLiteral("id")), options, [done, strategy](const MergeResult &m) {
            if (m.error) {
                if (m.conflicts.isEmpty())
                    return done(*m.error);
                // The error body with the paths; the status from the one mapping.
                return done(Reply::json(
                    QJsonObject{{k::Error, m.error->message},
                                {k::Code, m.error->code},
                                {wk::Conflicts, QJsonArray::fromStringList(m.conflicts)}},
                    statusFor(m.error->kind)));
            }
            done(Reply::json(QJsonObject{
                {k::Success, true},
                {wk::Strategy, strategy},
                {wk::Branch, m.branch},
                {wk::Target, m.target},
                {wk::TargetPath, m.targetPath},
                {wk::Commit, m.commit},
                {wk::AutoCommit, m.autoCommit.isEmpty() ? QJsonValue() : QJsonValue(m.autoCommit)},
                {wk::AlreadyUpToDate, m.alreadyUpToDate},
            }));
        });
}

} // namespace flotilla
