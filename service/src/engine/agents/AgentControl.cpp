// AgentRuntime's control verbs: stop (a turn interrupt where the CLI has one), clear context,
// change model, permission answers and prompt changes. The turn loop is in AgentRuntime.cpp.

#include "agents/AgentRuntime.h"

#include "agents/AgentSession.h"
#include "agents/RuntimeUpdate.h"
#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "protocol/WireNames.h"

namespace flotilla {

namespace c = wire::code;

Status AgentRuntime::stop(const QString &agentId) {
    return stopAgent(agentId, KeepProcess::IfItCanInterrupt);
}

Status AgentRuntime::stopAgent(const QString &agentId, KeepProcess keep) {
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    Session &s = session(agentId);
    s.queue.clear();
    flushText(agentId);
    const bool wasWorking = s.turnActive;
    if (s.turnActive) {
        s.turnActive = false;
        OutputChunk last;
        last.isStreaming = false;
        last.text = QStringLiteral("[stopped]");
        emitChunk(agentId, last);
    }
    if (s.process && !s.exiting) {
        // A CLI that can interrupt its turn keeps its process (and its warm start-up): only
        // the turn ends. One that cannot, an idle one, or a clear-context ends the process.
        if (keep == KeepProcess::IfItCanInterrupt && s.interrupting) {
            // Stopped twice: the first stop's interrupt is still under way.
        } else if (keep == KeepProcess::IfItCanInterrupt && wasWorking) {
            if (s.process->interruptTurn()) {
                s.interrupting = true;
                s.interruptTimer.start();
            } else {
                s.exiting = true; // it ended its process: finished() follows
            }
        } else {
            s.exiting = true;
            s.process->stop();
        }
    }
    Q_EMIT stopped(agentId);
    apply(agentId, RuntimeUpdate().stopped());
    return std::nullopt;
}

void AgentRuntime::onInterruptTimeout(const QString &agentId) {
    auto it = m_sessions.find(agentId);
    if (it == m_sessions.end() || !(*it)->interrupting || !(*it)->process)
        return;
    Session &s = **it;
    qCWarning(lcAgents).noquote() << "agent" << agentId << s.cliName
                                  << "did not end the interrupted turn in"
                                  << s.interruptTimer.interval() << "ms; ending its process";
    s.exiting = true;
    s.process->stop();
}

Status AgentRuntime::clearContext(const QString &agentId) {
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    Session &s = session(agentId);
    const bool wasWorking = s.turnActive;
    // A new conversation needs a new process (Codex: a new thread, Claude: no --resume).
    if (Status e = stopAgent(agentId, KeepProcess::No))
        return e;
    apply(agentId, RuntimeUpdate().contextCleared(wasWorking));
    return m_agents.flush();
}

Status AgentRuntime::changeModel(const QString &agentId, const QString &provider,
                                 const QString &model) {
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    m_agents.updateRuntime(agentId, [&](Agent &a) {
        a.provider = provider;
        a.model = model;
    });
    Session &s = session(agentId);
    if (s.process && (s.modelInUse != model || s.providerInUse != provider))
        s.respawnBeforeNextTurn = true; // takes effect on the next turn, same session
    return m_agents.flush();
}

void AgentRuntime::answerPermission(const QString &agentId, const QString &requestId, bool granted,
                                    const QString &reason) {
    const auto it = m_sessions.constFind(agentId);
    if (it == m_sessions.constEnd() || !(*it)->process)
        return;
    Session &s = **it;
    if (!s.openPermissions.contains(requestId))
        return; // the process that asked is gone: its request went with it
    s.process->answerPermission(s.openPermissions.take(requestId), granted, reason);
}

} // namespace flotilla
