#include "agents/AgentRuntime.h"

#include "agents/AgentProcess.h"
#include "agents/AgentSession.h"
#include "agents/AgentShaper.h"
#include "agents/Provider.h"
#include "agents/RuntimeUpdate.h"
#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "domain/ToolHistory.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"
#include "sandbox/SandboxPolicy.h"
#include "security/AgentTokens.h"

#include <QFileInfo>
#include <QTimer>

#include <cstring>

namespace flotilla {

namespace c = wire::code;
using Kind = AgentEvent::Kind;

namespace {
// How long an interrupted turn may take to end before its process is ended instead.
constexpr int kInterruptGraceMs = 5'000;
// What ssh exits with when it, not the remote command, failed (base/RemoteLaunch.h).
constexpr int kSshFailed = 255;

// "exited unexpectedly (exit code 3)" or "was killed by signal 9 (SIGKILL)": a signal says
// someone or something (OOM killer, a user's kill) ended it, an exit code that the CLI gave up.
QString describeExit(int exitCode, int signal) {
    if (signal == 0)
        return QStringLiteral("exited unexpectedly (exit code %1)").arg(exitCode);
    const char *abbrev = ::sigabbrev_np(signal); // glibc >= 2.32, thread-safe, no locale
    return abbrev ? QStringLiteral("was killed by signal %1 (SIG%2)")
                        .arg(signal)
                        .arg(QLatin1String(abbrev))
                  : QStringLiteral("was killed by signal %1").arg(signal);
}

} // namespace

AgentRuntime::AgentRuntime(RuntimeConfig config, const ProviderRegistry &providers,
                           AgentRegistry &agents, AgentShaper &shaper, ToolHistory &tools,
                           AgentTokens &tokens, const SandboxPolicy &sandbox, Clock clock,
                           QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_providers(providers)
    , m_agents(agents)
    , m_shaper(shaper)
    , m_tools(tools)
    , m_tokens(tokens)
    , m_sandbox(sandbox)
    , m_clock(std::move(clock)) {
    connect(&m_agents, &AgentRegistry::agentDeleted, this, [this](const QString &id) {
        if (auto s = m_sessions.take(id))
            endProcess(*s);
    });
    // A new idle timeout counts from its change.
    connect(&m_agents, &AgentRegistry::agentUpdated, this,
            [this](const QString &id, const QJsonObject &changes) {
                if (changes.contains(wire::usage::key::IdleTimeoutSeconds) &&
                    m_sessions.contains(id))
                    updateIdleTimer(id, /*restart=*/true);
            });
}

AgentRuntime::~AgentRuntime() {
    shutdown();
}

QString AgentRuntime::noRuntimeFor(const QString &provider) const {
    return QStringLiteral("provider '%1' has no runtime in this flotillad; change the agent's "
                          "provider (bulk/change-model) to one it runs: %2")
        .arg(provider, m_providers.providerNames().join(QStringLiteral(" or ")));
}

AgentRuntime::Session &AgentRuntime::session(const QString &agentId) {
    auto &slot = m_sessions[agentId];
    if (!slot) {
        slot = std::make_shared<Session>();
        slot->flushTimer.setSingleShot(true);
        connect(&slot->flushTimer, &QTimer::timeout, this, [this, agentId] { flushText(agentId); });
        slot->interruptTimer.setSingleShot(true);
        slot->interruptTimer.setInterval(kInterruptGraceMs);
        connect(&slot->interruptTimer, &QTimer::timeout, this,
                [this, agentId] { onInterruptTimeout(agentId); });
        slot->idleTimer.setSingleShot(true);
        connect(&slot->idleTimer, &QTimer::timeout, this,
                [this, agentId] { onIdleTimeout(agentId); });
    }
    return *slot;
}

Result<int> AgentRuntime::sendMessage(const QString &agentId, const QString &text) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    // (On another host the directory and the CLI are that machine's: its wrapper says when
    // either is missing.)
    const bool here = agent->host.isEmpty();
    if (here && !QFileInfo(agent->cwd).isDir())
        return refuse(agentId, Error::invalid(c::InvalidValue,
                                              QStringLiteral("working directory %1 no longer "
                                                             "exists; recreate it or delete the "
                                                             "agent")
                                                  .arg(agent->cwd)));
    // Never run an agent with another provider's CLI: no provider, no process.
    const Provider *provider = m_providers.find(agent->provider);
    if (!provider)
        return refuse(agentId, Error{ErrorKind::Unavailable, c::ProviderUnavailable,
                                     noRuntimeFor(agent->provider)});
    if (const QString why = here ? provider->unavailableReason() : QString(); !why.isEmpty())
        return refuse(agentId, Error{ErrorKind::Unavailable, c::CliUnavailable, why});
    // Its sandbox cannot start here (bwrap gone, namespaces off since it was created): refused
    // with the reason, never run unconfined.
    if (Status e = m_sandbox.check(*agent))
        return refuse(agentId, *e);
    // Over a budget: refused, and what is queued already stays queued.
    if (m_config.admit) {
        if (Status refusal = m_config.admit(agentId)) {
            RuntimeUpdate update;
            update.lastError = refusal->message;
            apply(agentId, update);
            return *refusal;
        }
    }
    Session &s = session(agentId);
    s.queue.append(text);
    if (s.turnActive || s.exiting || s.interrupting)
        return int(s.queue.size());
    startNextTurn(agentId);
    return 0;
}

AgentSandbox AgentRuntime::sandboxOf(const Agent &agent) const {
    return m_sandbox.effective(agent);
}

Error AgentRuntime::refuse(const QString &agentId, Error error) {
    apply(agentId, RuntimeUpdate().refused(error.message));
    return error;
}

void AgentRuntime::startNextTurn(const QString &agentId) {
    tryStartTurn(agentId);
    updateIdleTimer(agentId);
}

void AgentRuntime::tryStartTurn(const QString &agentId) {
    Session &s = session(agentId);
    if (s.queue.isEmpty() || s.turnActive || s.exiting || s.interrupting)
        return;
    if (m_config.admit) {
        if (Status refusal = m_config.admit(agentId)) {
            // A budget is reached: the turn in progress has finished, the rest waits.
            s.heldByBudget = true;
            RuntimeUpdate update;
            update.lastError = refusal->message;
            apply(agentId, update);
            return;
        }
    }
    s.heldByBudget = false;
    if (s.process) {
        // Instructions, skills or tools changed since the process started (a class, an area,
        // the agent, the global prompt): they reach the agent on this turn.
        const Agent *agent = m_agents.find(agentId);
        const AgentShape shape = agent ? m_shaper.shapeFor(*agent) : s.shapeInUse;
        if (shape.instructions != s.promptInUse || !shape.sameLaunch(s.shapeInUse))
            s.respawnBeforeNextTurn = true;
        // A changed sandbox (PATCH, permission mode, default) needs a new process.
        if (agent && m_sandbox.effective(*agent) != s.sandboxInUse)
            s.respawnBeforeNextTurn = true;
        if (s.respawnBeforeNextTurn && agent && agent->provider == s.providerInUse &&
            shape.sameLaunch(s.shapeInUse) &&
            s.process->reconfigure(agent->model, shape.instructions)) {
            // The CLI took them as they are (Codex): no restart, no start-up.
            s.modelInUse = agent->model;
            s.promptInUse = shape.instructions;
            s.shapeInUse = shape;
            s.respawnBeforeNextTurn = false;
        }
    }
    if (s.process && s.respawnBeforeNextTurn) {
        // New prompt or model: end this process at a turn boundary, resume in a fresh one.
        s.exiting = true;
        s.process->stop();
        return;
    }
    // Starting a process and starting the turn are one change of the agent.
    RuntimeUpdate update;
    if (!s.process && !spawn(agentId, s, update))
        return;
    const QString text = s.queue.takeFirst();
    s.turnActive = true;
    s.toolNames.clear();
    s.toolSkills.clear();
    s.process->sendUserMessage(text);
    update.turnStarted(text, m_clock.nowMs());
    if (!s.launchWarning.isEmpty())
        update.lastError = s.launchWarning; // a standing condition: said with every turn
    apply(agentId, update);
    if (update.sessionId)
        m_agents.flush(); // the forgotten session is forgotten for a restart too
}

void AgentRuntime::onEvent(const QString &agentId, const AgentEvent &e) {
    Session &s = session(agentId);
    if (s.interrupting) {
        // The rest of a turn the user stopped: it already ended for clients ("[stopped]").
        if (e.kind == Kind::TurnEnded) {
            s.interrupting = false;
            s.interruptTimer.stop();
            recordTurnUsage(agentId, e, /*applyToAgent=*/true); // spent all the same
            startNextTurn(agentId);
        }
        return;
    }
    // Output first, in the order the CLI produced it; then the agent's state, in one update.
    emitEventOutput(agentId, s, e);
    // Looked up after the output went out: its receivers may have changed the registry.
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return;
    RuntimeUpdate update =
        RuntimeUpdate::forEvent(*agent, e, m_config.defaultContextLimit, m_clock.nowMs());
    // A turn that went well clears lastError, but not what stands for the whole process (a CLI
    // sandbox that cannot start here).
    if (update.lastError && update.lastError->isEmpty() && !s.launchWarning.isEmpty())
        update.lastError = s.launchWarning;
    const qint64 contextUsed = update.contextUsed.value_or(agent->contextUsed);
    const qint64 contextLimit = update.contextLimit.value_or(agent->contextLimit);
    apply(agentId, update);
    switch (e.kind) {
    case Kind::SessionStarted:
        if (update.sessionId)
            m_agents.flush(); // a restart must be able to resume: write the session id now
        break;
    case Kind::Usage:
        Q_EMIT contextUpdated(agentId, contextUsed, contextLimit);
        break;
    case Kind::TurnEnded:
        if (e.usage.contextWindow > 0)
            Q_EMIT contextUpdated(agentId, contextUsed, contextLimit);
        recordTurnUsage(agentId, e, /*applyToAgent=*/false); // `update` added it to the agent
        Q_EMIT turnFinished(agentId, e.text, e.isError);
        startNextTurn(agentId); // the next queued message is a turn (and an update) of its own
        break;
    case Kind::TextDelta:
    case Kind::ToolUse:
    case Kind::ToolResult:
    case Kind::ApiRetry:
    case Kind::Compacting:
        break;
    }
}

// What clients see of an event besides the agent's state: output chunks, tool history, notices.
void AgentRuntime::emitEventOutput(const QString &agentId, Session &s, const AgentEvent &e) {
    switch (e.kind) {
    case Kind::TextDelta:
        if (e.isTopLevel())
            appendText(agentId, e.text);
        break;
    case Kind::ToolUse: {
        flushText(agentId);
        s.toolNames.insert(e.toolUseId, e.toolName);
        if (!e.skill.isEmpty())
            s.toolSkills.insert(e.toolUseId, e.skill);
        OutputChunk chunk;
        chunk.toolName = e.toolName;
        chunk.skill = e.skill;
        chunk.toolInput = e.toolInput;
        chunk.hasToolInput = true;
        emitChunk(agentId, chunk);
        const Agent *a = m_agents.find(agentId);
        if (Status err = m_tools.record(agentId, a ? a->name : QString(), e.toolName, e.toolInput,
                                        m_clock.nowMs()))
            qCWarning(lcAgents).noquote() << "tool history not saved:" << err->message;
        break;
    }
    case Kind::ToolResult: {
        flushText(agentId);
        OutputChunk chunk;
        chunk.toolName = s.toolNames.value(e.toolUseId);
        chunk.skill = s.toolSkills.value(e.toolUseId);
        chunk.toolOutput = e.toolOutput.left(m_config.maxToolOutputInEvent);
        chunk.hasToolOutput = true;
        chunk.isError = e.isError;
        emitChunk(agentId, chunk);
        break;
    }
    case Kind::TurnEnded: {
        flushText(agentId);
        s.turnActive = false;
        OutputChunk last;
        last.isStreaming = false;
        if (e.isError)
            last.text = QStringLiteral("Error: ") + e.text;
        emitChunk(agentId, last);
        break;
    }
    case Kind::ApiRetry:
        qCInfo(lcAgents).noquote()
            << "agent" << agentId << "model API retry" << e.attempt << e.text;
        break;
    case Kind::Compacting:
        if (s.compacting != e.active) {
            s.compacting = e.active;
            Q_EMIT compactingChanged(agentId, e.active);
        }
        break;
    case Kind::SessionStarted:
    case Kind::Usage:
        break;
    }
}

void AgentRuntime::onFinished(const QString &agentId, int exitCode, int signal, bool requested) {
    auto it = m_sessions.find(agentId);
    if (it == m_sessions.end())
        return;
    Session &s = **it;
    s.idleTimer.stop();
    flushText(agentId);
    QString stderrTail;
    if (s.process) {
        stderrTail = s.process->stderrTail();
        s.process->deleteLater(); // never delete a sender inside its own signal
        s.process = nullptr;
    }
    s.openPermissions.clear();
    s.interrupting = false;
    s.interruptTimer.stop();
    m_tokens.revoke(s.token);
    s.token.clear();
    apply(agentId, RuntimeUpdate().processEnded());
    if (s.compacting) {
        s.compacting = false;
        Q_EMIT compactingChanged(agentId, false);
    }
    if (requested) {
        // Stopped, cleared or retired for a new prompt/model: whatever was queued meanwhile
        // starts now, in a fresh process.
        s.exiting = false;
        startNextTurn(agentId);
        return;
    }
    // Not asked for: a crash, or the CLI gave up. The next message restarts it, resuming.
    s.crashed = true;
    // ssh's own failure (255) on another host: the link dropped, not the CLI. The session is
    // that host's; the link reconnects by itself and the next message resumes it there.
    if (s.turnActive && !s.hostInUse.isEmpty() && exitCode == kSshFailed && signal == 0)
        failTurn(agentId,
                 QStringLiteral("host unreachable: the connection to host '%1' was lost "
                                "during the turn%2; the turn was interrupted, and the "
                                "next message resumes the session there")
                     .arg(s.hostInUse,
                          stderrTail.isEmpty()
                              ? QString()
                              : QStringLiteral(" (ssh: %1)").arg(stderrTail.right(300).trimmed())));
    else if (s.turnActive)
        failTurn(agentId, QStringLiteral("%1 %2 during the turn%3")
                              .arg(s.cliName, describeExit(exitCode, signal),
                                   stderrTail.isEmpty()
                                       ? QString()
                                       : QStringLiteral(": ") + stderrTail.right(500).trimmed()));
    if (!s.queue.isEmpty())
        startNextTurn(agentId);
}

void AgentRuntime::failTurn(const QString &agentId, const QString &why) {
    Session &s = session(agentId);
    qCWarning(lcAgents).noquote() << "agent" << agentId << why;
    flushText(agentId);
    s.turnActive = false;
    OutputChunk last;
    last.isStreaming = false;
    last.text = QStringLiteral("Error: ") + why;
    emitChunk(agentId, last);
    apply(agentId, RuntimeUpdate().turnFailed(why));
}

void AgentRuntime::apply(const QString &agentId, const RuntimeUpdate &update) {
    if (!update.isEmpty())
        m_agents.updateRuntime(agentId, [&update](Agent &a) { update.applyTo(a); });
}

void AgentRuntime::appendText(const QString &agentId, const QString &text) {
    Session &s = session(agentId);
    s.pendingText += text;
    // Uncongested: every delta is its own chunk. Congested: merge, bounded in time and size.
    if (!m_config.congested || !m_config.congested() ||
        s.pendingText.size() >= m_config.coalesceMaxBytes) {
        flushText(agentId);
        return;
    }
    if (!s.flushTimer.isActive())
        s.flushTimer.start(m_config.coalesceMs);
}

void AgentRuntime::flushText(const QString &agentId) {
    auto it = m_sessions.find(agentId);
    if (it == m_sessions.end() || (*it)->pendingText.isEmpty())
        return;
    Session &s = **it;
    s.flushTimer.stop();
    OutputChunk chunk;
    chunk.text = std::exchange(s.pendingText, QString());
    emitChunk(agentId, chunk);
}

void AgentRuntime::emitChunk(const QString &agentId, OutputChunk chunk) {
    chunk.agentId = agentId;
    chunk.timestamp = m_clock.nowMs();
    Q_EMIT output(chunk);
}

void AgentRuntime::endProcess(Session &s) {
    m_tokens.revoke(s.token);
    s.token.clear();
    s.openPermissions.clear();
    if (!s.process)
        return;
    s.process->disconnect(this);
    delete s.process; // its destructor kills the whole process group
    s.process = nullptr;
}

void AgentRuntime::shutdown() {
    for (const auto &s : std::as_const(m_sessions))
        endProcess(*s);
}

bool AgentRuntime::isProcessRunning(const QString &agentId) const {
    const auto it = m_sessions.constFind(agentId);
    return it != m_sessions.constEnd() && (*it)->process && (*it)->process->isRunning();
}

qint64 AgentRuntime::processId(const QString &agentId) const {
    const auto it = m_sessions.constFind(agentId);
    return it != m_sessions.constEnd() && (*it)->process ? (*it)->process->pid() : 0;
}

} // namespace flotilla
