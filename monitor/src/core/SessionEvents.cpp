// MonitorSession's side of the event channel: one handler per server message type, found in a
// table keyed by type, not an if-chain (docs/style.md, Signals and slots).

#include "core/MonitorLog.h"
#include "core/MonitorSession.h"
#include "core/SandboxText.h"
#include "protocol/BossNames.h"
#include "protocol/ExecNames.h"
#include "protocol/HostNames.h"
#include "protocol/OrganizationNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

#include <QDateTime>
#include <QJsonArray>
#include <QPointer>
#include <QSet>
#include <QTimer>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace m = ::flotilla::wire::msg;
namespace ex = ::flotilla::wire::exec;
namespace bs = ::flotilla::wire::boss;
namespace pm = ::flotilla::wire::permission;
namespace org = ::flotilla::wire::org;

using client::RestReply;

const QHash<QString, MonitorSession::Handler> &MonitorSession::handlers() {
    static const QHash<QString, Handler> table{
        {QString(m::AgentsUpdate), &MonitorSession::onAgentsUpdate},
        {QString(m::AgentCreated), &MonitorSession::onAgentCreated},
        {QString(m::AgentUpdated), &MonitorSession::onAgentUpdated},
        {QString(m::AgentDeleted), &MonitorSession::onAgentDeleted},
        {QString(m::Output), &MonitorSession::onOutput},
        {QString(m::ContextUpdate), &MonitorSession::onContextUpdate},
        {QString(m::CompactingStatus), &MonitorSession::onCompactingStatus},
        {QString(m::AgentNotification), &MonitorSession::onNotification},
        {QString(ex::msg::ExecTaskStarted), &MonitorSession::onExecStarted},
        {QString(ex::msg::ExecTaskOutput), &MonitorSession::onExecOutput},
        {QString(ex::msg::ExecTaskCompleted), &MonitorSession::onExecCompleted},
        {QString(pm::msg::Request), &MonitorSession::onPermissionRequest},
        {QString(pm::msg::Resolved), &MonitorSession::onPermissionResolved},
        {QString(bs::msg::DelegationDecision), &MonitorSession::onDelegationDecision},
        {QString(bs::msg::DelegationHistory), &MonitorSession::onDelegationHistory},
        {QString(org::msg::FocusAgent), &MonitorSession::onFocusAgent},
        {QString(m::Error), &MonitorSession::onServiceError},
        {QString(::flotilla::wire::sandbox::msg::SandboxBlocked),
         &MonitorSession::onSandboxBlocked},
        {QString(::flotilla::wire::worktree::msg::WorktreeDiffChanged),
         &MonitorSession::onWorktreeDiffChanged},
        {QString(::flotilla::wire::host::msg::HostCreated), &MonitorSession::onHostChanged},
        {QString(::flotilla::wire::host::msg::HostUpdated), &MonitorSession::onHostChanged},
        {QString(::flotilla::wire::host::msg::HostDeleted), &MonitorSession::onHostDeleted},
        // Known, and nothing to show for them in the monitor (yet): agent changes they imply
        // arrive as agent_updated; the work plan view is not built.
        {QString(m::Pong), &MonitorSession::onIgnored},
        {QString(m::WorkPlansUpdate), &MonitorSession::onIgnored},
        {QString(m::ContextStats), &MonitorSession::onIgnored},
        {QString(org::msg::Activity), &MonitorSession::onIgnored},
        {QString(org::msg::AreaCreated), &MonitorSession::onIgnored},
        {QString(org::msg::AreaDeleted), &MonitorSession::onIgnored},
        {QString(bs::msg::BossSubordinatesUpdated), &MonitorSession::onIgnored},
        {QString(bs::msg::BossSpawnedAgent), &MonitorSession::onIgnored},
        {QString(bs::msg::AgentTaskStarted), &MonitorSession::onIgnored},
        {QString(bs::msg::AgentTaskOutput), &MonitorSession::onIgnored},
        {QString(bs::msg::AgentTaskCompleted), &MonitorSession::onIgnored},
        {QString(bs::msg::WorkPlanCreated), &MonitorSession::onIgnored},
        {QString(bs::msg::WorkPlanUpdated), &MonitorSession::onIgnored},
        {QString(bs::msg::WorkPlanDeleted), &MonitorSession::onIgnored},
    };
    return table;
}

void MonitorSession::onEvent(const QString &type, const QJsonValue &payload) {
    const Handler handler = handlers().value(type, nullptr);
    if (!handler) {
        // What shapes agents has its own table (ShapingCatalog).
        if (!m_shaping.handleEvent(type, payload))
            qCDebug(lcMonitor) << "no handler for event" << type;
        return;
    }
    (this->*handler)(payload);
}

void MonitorSession::onAgentsUpdate(const QJsonValue &payload) {
    const QJsonArray agents = payload.toArray();
    m_agents.applySnapshot(agents);
    // A monitor that connects while a turn runs learns its message here (currentTask), not
    // from the output that follows.
    for (const QJsonValue &v : agents) {
        const QJsonObject agent = v.toObject();
        followTurn(agent.value(k::Id).toString(), agent);
    }
    reconcileTasks();
    Q_EMIT resynced();
}

void MonitorSession::onAgentCreated(const QJsonValue &payload) {
    m_agents.upsert(payload.toObject());
}

void MonitorSession::onAgentUpdated(const QJsonValue &payload) {
    const QJsonObject changes = payload.toObject();
    const QString id = changes.value(k::Id).toString();
    m_agents.applyChanges(id, changes);
    followTurn(id, changes);
}

void MonitorSession::followTurn(const QString &agentId, const QJsonObject &agentFields) {
    // currentTask is set when a turn starts (whoever sent its message) and emptied when it ends;
    // agent_updated carries it only when it changed.
    if (agentId.isEmpty() || !agentFields.contains(k::CurrentTask))
        return;
    const QString task = agentFields.value(k::CurrentTask).toString();
    if (task.isEmpty()) {
        if (TranscriptModel *t = m_conversations.value(agentId))
            t->turnEnded();
        return;
    }
    // The turn's start on the service's clock: history entries from then on are this turn's.
    qint64 started = agentFields.value(k::LastActivity).toInteger();
    if (started <= 0)
        started = QDateTime::currentMSecsSinceEpoch();
    conversation(agentId).turnStarted(task, started);
}

void MonitorSession::onAgentDeleted(const QJsonValue &payload) {
    const QString id = payload.toObject().value(k::Id).toString();
    m_agents.remove(id);
    resetHistory(id);
    // The conversation stays: a view may still show it; it is bounded.
}

void MonitorSession::onOutput(const QJsonValue &payload) {
    const QJsonObject chunk = payload.toObject();
    const QString agentId = chunk.value(k::AgentId).toString();
    if (!agentId.isEmpty())
        conversation(agentId).appendChunk(chunk);
}

void MonitorSession::onContextUpdate(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    m_agents.setContext(o.value(k::AgentId).toString(), o.value(k::ContextUsed).toInteger(),
                        o.value(k::ContextLimit).toInteger());
}

void MonitorSession::onCompactingStatus(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    const QString agentId = o.value(k::AgentId).toString();
    if (agentId.isEmpty())
        return;
    conversation(agentId).appendNotice(o.value(k::Active).toBool() ? tr("[compacting context...]")
                                                                   : tr("[context compacted]"));
}

void MonitorSession::onNotification(const QJsonValue &payload) {
    const QJsonObject n = payload.toObject();
    m_notifications.prepend(n);
    Q_EMIT notificationArrived(n);
}

void MonitorSession::onExecStarted(const QJsonValue &payload) {
    QJsonObject task = payload.toObject();
    task.insert(TasksModel::DoneKey, false);
    task.insert(ex::key::Output, QString());
    m_tasks.prepend(task);
}

void MonitorSession::onExecOutput(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    QString text = o.value(ex::key::Output).toString();
    const qint64 skipped = o.value(ex::key::SkippedBytes).toInteger();
    if (skipped > 0)
        text.prepend(tr("[%1 bytes skipped]\n").arg(skipped));
    m_tasks.appendOutput(o.value(ex::key::TaskId).toString(), text);
}

void MonitorSession::onExecCompleted(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    finishTask(o.value(ex::key::TaskId).toString(), o);
}

void MonitorSession::finishTask(const QString &taskId, const QJsonObject &completion) {
    if (m_tasks.rowOf(taskId) < 0)
        return;
    QJsonObject changes = completion;
    changes.remove(ex::key::Output); // never replaces the streamed output
    changes.insert(TasksModel::DoneKey, true);
    m_tasks.update(taskId, changes);
    // Finished tasks stay a while so the user sees how they ended, then make room.
    QTimer::singleShot(m_taskLingerMs, this, [this, taskId] {
        if (m_tasks.itemById(taskId).value(TasksModel::DoneKey).toBool())
            m_tasks.remove(taskId);
    });
}

// GET /api/exec/tasks/:agentId -> 200 {tasks} | 404
void MonitorSession::reconcileTasks() {
    QSet<QString> agents;
    for (int row = 0; row < m_tasks.rowCount(); ++row) {
        const QJsonObject t = m_tasks.item(row);
        if (!t.value(TasksModel::DoneKey).toBool())
            agents.insert(t.value(k::AgentId).toString());
    }
    for (const QString &agentId : std::as_const(agents)) {
        m_client.get(
            QStringLiteral("/api/exec/tasks/") + agentId, [this, agentId](const RestReply &r) {
                QSet<QString> running;
                if (r.ok()) {
                    for (const QJsonValue &v : r.body.object().value(ex::key::Tasks).toArray())
                        running.insert(v.toObject().value(ex::key::TaskId).toString());
                } else if (r.status != 404) {
                    return; // unknown state: keep what we have
                }
                for (int row = m_tasks.rowCount() - 1; row >= 0; --row) {
                    const QJsonObject t = m_tasks.item(row);
                    const QString id = t.value(ex::key::TaskId).toString();
                    if (t.value(k::AgentId).toString() == agentId &&
                        !t.value(TasksModel::DoneKey).toBool() && !running.contains(id))
                        finishTask(id, {{ex::key::ExitCode, QJsonValue::Null}});
                }
            });
    }
}

void MonitorSession::onPermissionRequest(const QJsonValue &payload) {
    const QJsonObject request = payload.toObject();
    const bool known = m_permissions.rowOf(request.value(k::Id).toString()) >= 0;
    m_permissions.append(request);
    if (!known)
        Q_EMIT permissionRequested(request);
}

void MonitorSession::onPermissionResolved(const QJsonValue &payload) {
    const QString id = payload.toObject().value(k::Id).toString();
    m_permissions.remove(id);
    Q_EMIT permissionResolved(id);
}

void MonitorSession::onDelegationDecision(const QJsonValue &payload) {
    const QJsonObject decision = payload.toObject();
    if (m_selectedBoss.isEmpty() || decision.value(k::BossId).toString() != m_selectedBoss)
        return;
    // Sent again with the same id when the task ends: prepend() merges into the existing row.
    m_delegations.prepend(decision);
}

void MonitorSession::onDelegationHistory(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    if (o.value(k::BossId).toString() != m_selectedBoss)
        return;
    QList<QJsonObject> decisions;
    for (const QJsonValue &v : o.value(bs::key::Decisions).toArray())
        decisions.append(v.toObject());
    m_delegations.reset(decisions);
}

void MonitorSession::onFocusAgent(const QJsonValue &payload) {
    Q_EMIT agentFocusRequested(payload.toObject().value(k::AgentId).toString());
}

void MonitorSession::onServiceError(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    Q_EMIT actionFailed(tr("service"), o.value(k::Message).toString());
}

void MonitorSession::onSandboxBlocked(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    const QString agentId = o.value(k::AgentId).toString();
    const QString host = o.value(wire::sandbox::key::Host).toString();
    if (agentId.isEmpty() || host.isEmpty())
        return;
    const QString where = hostPort(host, o.value(wire::sandbox::key::Port).toInt());
    m_agents.noteSandboxBlocked(agentId, where);
    // Where the agent was when it happened: after the tool call that tried. A command that
    // retries gets one line that counts. No timestamp: the event has none on the service's
    // clock, and history paging stops at the oldest timestamped entry.
    conversation(agentId).appendRepeatedNotice(
        where, [&where](int times) { return sandboxBlockedLine(where, times); });
}

void MonitorSession::onIgnored(const QJsonValue &) {
}

} // namespace flotilla::monitor
