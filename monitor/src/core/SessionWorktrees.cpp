// MonitorSession: an agent's git worktree: its diff, a review, a merge, and the event
// that says the diff changed.

#include "core/MonitorLog.h"
#include "core/MonitorSession.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace wk = ::flotilla::wire::worktree::key;

namespace {
QString agentPath(const QString &agentId, const char *tail) {
    return QStringLiteral("/api/agents/") + agentId + QLatin1String(tail);
}
} // namespace

// GET /api/agents/:id/diff -> 200 | 404 | 409 no_worktree | 500 git_failed
void MonitorSession::fetchDiff(const QString &agentId, Done done) {
    m_client.get(agentPath(agentId, "/diff"), std::move(done));
}

// POST /api/agents/:id/review -> 200 {message: "Review sent" | "Review queued (position N)"}
void MonitorSession::sendReview(const QString &agentId, const QJsonArray &comments,
                                const QString &message, Done done) {
    QJsonObject body{{wk::Comments, comments}};
    if (!message.trimmed().isEmpty())
        body.insert(k::Message, message);
    call(tr("send review"), QByteArrayLiteral("POST"), agentPath(agentId, "/review"), body,
         std::move(done));
}

// POST /api/agents/:id/merge -> 200 | 409 merge_conflict {conflicts} | agent_working | ...
void MonitorSession::mergeAgent(const QString &agentId, const QString &strategy,
                                const QString &message, Done done) {
    QJsonObject body{{wk::Strategy, strategy}};
    if (!message.trimmed().isEmpty())
        body.insert(k::Message, message);
    m_client.post(agentPath(agentId, "/merge"), body,
                  [agentId, done = std::move(done)](const client::RestReply &r) {
                      if (!r.ok())
                          qCInfo(lcMonitor) << "merge of" << agentId << "refused:" << r.status
                                            << r.code << r.error;
                      if (done)
                          done(r);
                  });
}

void MonitorSession::onWorktreeDiffChanged(const QJsonValue &payload) {
    const QJsonObject p = payload.toObject();
    QStringList files;
    for (const QJsonValue &f : p.value(wk::Files).toArray())
        files << (f.isObject() ? f.toObject().value(wk::Path).toString() : f.toString());
    Q_EMIT worktreeDiffChanged(p.value(k::AgentId).toString(), files);
}

} // namespace flotilla::monitor
