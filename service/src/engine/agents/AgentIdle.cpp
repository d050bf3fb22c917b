// AgentRuntime's idle release and what budgets need of it: an agent with nothing to do has its
// CLI process ended after its idle timeout (the session is kept; the next message resumes it in
// a new process, as after any process end), turns' usage is reported, and a queue held by a
// budget runs again when admit() lets it. The turn loop is in AgentRuntime.cpp.

#include "agents/AgentRuntime.h"

#include "agents/AgentSession.h"
#include "agents/RuntimeUpdate.h"
#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "protocol/WireNames.h"

#include <limits>

namespace flotilla {

int AgentRuntime::idleTimeoutMs(const QString &agentId) const {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return 0;
    const int seconds =
        agent->idleTimeoutSeconds >= 0 ? agent->idleTimeoutSeconds : m_config.idleTimeoutSeconds;
    // Validation keeps both within a week; QTimer counts int milliseconds.
    return int(qBound<qint64>(0, qint64(seconds) * 1000, qint64(std::numeric_limits<int>::max())));
}

void AgentRuntime::updateIdleTimer(const QString &agentId, bool restart) {
    const auto it = m_sessions.constFind(agentId);
    if (it == m_sessions.constEnd())
        return;
    Session &s = **it;
    const Agent *agent = m_agents.find(agentId);
    const int timeoutMs = idleTimeoutMs(agentId);
    // Nothing to do: no turn, no permission request, nothing queued that may run (a queue held
    // by a budget does not keep a process: it may wait for days).
    const bool idle = s.process && !s.turnActive && !s.exiting && !s.interrupting &&
                      s.openPermissions.isEmpty() && (s.queue.isEmpty() || s.heldByBudget) &&
                      agent && agent->status != wire::status::WaitingPermission;
    if (!idle || timeoutMs <= 0) {
        s.idleTimer.stop();
        return;
    }
    if (restart || !s.idleTimer.isActive())
        s.idleTimer.start(timeoutMs);
}

void AgentRuntime::onIdleTimeout(const QString &agentId) {
    const auto it = m_sessions.constFind(agentId);
    if (it == m_sessions.constEnd() || !(*it)->process)
        return;
    Session &s = **it;
    qCInfo(lcAgents).noquote() << "agent" << agentId << "idle for" << s.idleTimer.interval() / 1000
                               << "s: ending its" << s.cliName
                               << "process (the next message resumes the session)";
    // As for a new prompt or model: a requested end, after which whatever is queued starts in a
    // fresh process that resumes the session.
    s.exiting = true;
    s.process->stop();
}

void AgentRuntime::recordTurnUsage(const QString &agentId, const AgentEvent &e, bool applyToAgent) {
    if (e.turnUsage.turns == 0)
        return;
    if (applyToAgent) {
        RuntimeUpdate update;
        update.addUsage = e.turnUsage;
        apply(agentId, update);
    }
    Q_EMIT turnUsage(agentId, e.turnUsage);
}

void AgentRuntime::resumeQueue(const QString &agentId) {
    const auto it = m_sessions.constFind(agentId);
    if (it == m_sessions.constEnd() || !(*it)->heldByBudget)
        return;
    startNextTurn(agentId);
}

QStringList AgentRuntime::heldAgents() const {
    QStringList held;
    for (auto it = m_sessions.constBegin(); it != m_sessions.constEnd(); ++it) {
        if ((*it)->heldByBudget && !(*it)->queue.isEmpty())
            held.append(it.key());
    }
    return held;
}

} // namespace flotilla
