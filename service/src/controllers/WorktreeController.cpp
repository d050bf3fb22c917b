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

Result<WorktreeRemoval> WorktreeController::removalOf(const ApiRequest &request) {
    const auto deleteBranch = request.boolQuery(wp::DeleteBranch, false);
    if (!deleteBranch)
        return deleteBranch.error();
    const auto discard = request.boolQuery(wp::Discard, false);
    if (!discard)
        return discard.error();
    return WorktreeRemoval{*deleteBranch, *discard};
}

WorktreeController::WorktreeController(HttpServer &http, WorktreeService &worktrees,
                                       QObject *parent)
    : QObject(parent)
    , m_worktrees(worktrees) {
    // GET /api/agents/:id/diff?path= -> 200 {baseCommit, branch, head, files, patch, truncated}
    // | 404 | 409 no_worktree | 422 (path) | 500 git_failed
    http.routeAsync(Method::Get, QStringLiteral("/api/agents/:id/diff"),
                    [this](const ApiRequest &r, const ReplyCallback &done) {
                        const QString path = r.queryValue(wp::Path);
                        if (r.hasQuery(wp::Path)) {
                            if (Status e = checkRelativePath(path, wp::Path))
                                return done(*e);
                        }
                        m_worktrees.diff(r.param(QStringLiteral("id")), path,
                                         [done](const Result<QJsonObject> &diff) {
                                             done(diff ? Reply::json(*diff) : Reply(diff.error()));
                                         });
                    });

    // POST /api/agents/:id/review {comments: [{path, line, body}], message?} -> 200 {success,
    // agentId, message} | 400 | 404 | 422 | 503 (as POST /api/agents/:id/message)
    http.route(Method::Post, QStringLiteral("/api/agents/:id/review"),
               [this](const ApiRequest &r) -> Reply {
                   const auto body = r.jsonObject();
                   if (!body)
                       return body.error();
                   const auto review = parseReview(*body);
                   if (!review)
                       return review.error();
                   const QString id = r.param(QStringLiteral("id"));
                   const auto queued = m_worktrees.review(id, *review);
                   if (!queued)
                       return queued.error();
                   return Reply::json(QJsonObject{
                       {k::Success, true},
                       {k::AgentId, id},
                       {wk::Comments, review->comments.size()},
                       {k::Message,
                        *queued == 0 ? QStringLiteral("Review sent")
                                     : QStringLiteral("Review queued (position %1)").arg(*queued)},
                   });
               });

    // POST /api/agents/:id/merge {strategy, target?, message?} -> 200 {success, strategy, branch,
    // target, targetPath, commit, autoCommit, alreadyUpToDate} | 400 | 404 | 409 (agent_working,
    // no_worktree, merge_conflict with conflicts, merge_refused) | 422 | 500 git_failed
    http.routeAsync(
        Method::Post, QStringLiteral("/api/agents/:id/merge"),
        [this](const ApiRequest &r, const ReplyCallback &done) {
            const auto body = r.jsonObject();
            if (!body)
                return done(body.error());
            const auto options = parseMerge(*body);
            if (!options)
                return done(options.error());
            const QString strategy = options->strategy;
            m_worktrees.merge(
                r.param(QStringLiteral("id")), *options, [done, strategy](const MergeResult &m) {
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
                        {wk::AutoCommit,
                         m.autoCommit.isEmpty() ? QJsonValue() : QJsonValue(m.autoCommit)},
                        {wk::AlreadyUpToDate, m.alreadyUpToDate},
                    }));
                });
        });
}

} // namespace flotilla
