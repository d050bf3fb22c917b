#include "agents/AgentRuntime.h"

#include "app/Logging.h"
#include "domain/AgentRegistry.h"
#include "domain/AgentValidation.h"
#include "domain/SystemPromptStore.h"
#include "domain/ToolHistory.h"
#include "history/SessionFiles.h"
#include "protocol/WireNames.h"
#include "security/AgentTokens.h"

#include <QDateTime>
#include <QFileInfo>
#include <QTimer>

#include <cstring>

namespace flotilla {

namespace st = wire::status;
namespace c = wire::code;
using Kind = ClaudeEvent::Kind;

namespace {
qint64 nowMs() {
    return QDateTime::currentMSecsSinceEpoch();
}
constexpr qint64 kRestartWindowMs = 60'000;

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

struct AgentRuntime::Session {
    ClaudeProcess *process = nullptr;
    QStringList queue;
    bool turnActive = false;
    bool respawnBeforeNextTurn = false; // prompt or model changed while the process ran
    bool exiting = false; // asked to exit (stop, clear, respawn): the queue waits for finished()
    bool compacting = false;
    QString promptInUse;
    QString modelInUse;
    QString pendingText;
    QTimer flushTimer;
    QHash<QString, QString> toolNames; // tool_use id -> tool name, to label results
    QList<qint64> crashRestarts;       // times of automatic restarts after a crash
    bool crashed = false;
    QByteArray token; // the running process's own credential (AgentTokens), revoked at its end
};

AgentRuntime::AgentRuntime(RuntimeConfig config, AgentRegistry &agents, SystemPromptStore &prompt,
                           ToolHistory &tools, AgentTokens &tokens, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_agents(agents)
    , m_prompt(prompt)
    , m_tools(tools)
    , m_tokens(tokens) {
    connect(&m_prompt, &SystemPromptStore::promptChanged, this, &AgentRuntime::onPromptChanged);
    connect(&m_agents, &AgentRegistry::agentDeleted, this, [this](const QString &id) {
        if (auto s = m_sessions.take(id))
            endProcess(*s);
    });
}

AgentRuntime::~AgentRuntime() {
    shutdown();
}

AgentRuntime::Session &AgentRuntime::session(const QString &agentId) {
    auto &slot = m_sessions[agentId];
    if (!slot) {
        slot = std::make_shared<Session>();
        slot->flushTimer.setSingleShot(true);
        connect(&slot->flushTimer, &QTimer::timeout, this, [this, agentId] { flushText(agentId); });
    }
    return *slot;
}

Result<int> AgentRuntime::sendMessage(const QString &agentId, const QString &text) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    if (!QFileInfo(agent->cwd).isDir()) {
        const QString why =
            QStringLiteral("working directory %1 no longer exists; recreate it or delete the agent")
                .arg(agent->cwd);
        m_agents.updateRuntime(agentId, [&](Agent &a) {
            a.status = st::Error;
            a.lastError = why;
        });
        return Error::invalid(c::InvalidValue, why);
    }
    if (agent->provider != QLatin1String("claude")) {
        // Only the Claude Code runtime exists so far; never run a codex agent with the wrong CLI.
        const QString why = QStringLiteral("provider '%1' has no runtime in this flotillad yet; "
                                           "change the agent's model to a claude one")
                                .arg(agent->provider);
        m_agents.updateRuntime(agentId, [&](Agent &a) {
            a.status = st::Error;
            a.lastError = why;
        });
        return Error{ErrorKind::Unavailable, c::ProviderUnavailable, why};
    }
    const QFileInfo bin(m_config.claudeBin);
    if (m_config.claudeBin.isEmpty() || !bin.isExecutable()) {
        const QString why =
            m_config.claudeBin.isEmpty()
                ? QStringLiteral("Claude Code CLI not found: install it (npm install -g "
                                 "@anthropic-ai/claude-code) or start flotillad with --claude-bin")
                : QStringLiteral("Claude Code CLI %1 is not an executable file")
                      .arg(m_config.claudeBin);
        m_agents.updateRuntime(agentId, [&](Agent &a) {
            a.status = st::Error;
            a.lastError = why;
        });
        return Error{ErrorKind::Unavailable, c::CliUnavailable, why};
    }
    Session &s = session(agentId);
    s.queue.append(text);
    if (s.turnActive || s.exiting)
        return int(s.queue.size());
    startNextTurn(agentId);
    return 0;
}

void AgentRuntime::startNextTurn(const QString &agentId) {
    Session &s = session(agentId);
    if (s.queue.isEmpty() || s.turnActive || s.exiting)
        return;
    if (s.process && s.respawnBeforeNextTurn) {
        // New prompt or model: end this process at a turn boundary, resume in a fresh one.
        s.exiting = true;
        s.process->stop();
        return;
    }
    if (!s.process && !spawn(agentId, s))
        return;
    const QString text = s.queue.takeFirst();
    s.turnActive = true;
    s.toolNames.clear();
    s.process->send(claudeUserMessage(text));
    m_agents.updateRuntime(agentId, [&](Agent &a) {
        a.status = st::Working;
        a.currentTask = text.left(200);
        a.currentTool.clear();
        a.lastError.clear();
        a.lastActivity = nowMs();
    });
}

bool AgentRuntime::spawn(const QString &agentId, Session &s) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return false;
    if (s.crashed) {
        const qint64 now = nowMs();
        while (!s.crashRestarts.isEmpty() && now - s.crashRestarts.constFirst() > kRestartWindowMs)
            s.crashRestarts.removeFirst();
        if (s.crashRestarts.size() >= m_config.maxRestartsPerMinute) {
            failTurn(
                agentId,
                QStringLiteral(
                    "Claude Code crashed %1 time(s) in the last minute; not restarting it now. "
                    "Try again in a minute.")
                    .arg(s.crashRestarts.size()));
            s.queue.clear();
            return false;
        }
        s.crashRestarts.append(now);
        s.crashed = false;
    }
    if (!sessionOnDisk(*agent)) {
        // The CLI was killed before it wrote the session (or someone removed the file): --resume
        // would fail the turn with "No conversation found". Start afresh and say so.
        qCWarning(lcAgents).noquote() << "agent" << agentId << "session" << agent->sessionId
                                      << "not found on disk; starting a new session";
        OutputChunk note;
        note.isStreaming = true;
        note.text = QStringLiteral("(The earlier conversation %1 was not found on disk; this "
                                   "message starts a new one.)\n")
                        .arg(agent->sessionId);
        emitChunk(agentId, note);
        m_agents.updateRuntime(agentId, [](Agent &a) { a.sessionId.clear(); });
        m_agents.flush();
        agent = m_agents.find(agentId);
    }
    ClaudeLaunch launch;
    launch.program = m_config.claudeBin;
    launch.cwd = agent->cwd;
    launch.resumeSessionId = agent->sessionId;
    launch.model = agent->model;
    launch.appendSystemPrompt = m_prompt.prompt();
    launch.environment = m_config.environment;
    launch.environment.insert(QStringLiteral("FLOTILLA_AGENT_ID"),
                              agentId); // for report-task and hooks
    // Its own credential, new for this process: it can act only as this agent (AgentTokens.h).
    m_tokens.revoke(s.token);
    s.token = m_tokens.issue(agentId);
    launch.environment.insert(QStringLiteral("FLOTILLA_TOKEN"), QString::fromLatin1(s.token));
    launch.permissionHooks = m_config.permissionHooks;
    s.promptInUse = launch.appendSystemPrompt;
    s.modelInUse = launch.model;
    s.respawnBeforeNextTurn = false;
    s.process = new ClaudeProcess(this);
    connect(s.process, &ClaudeProcess::claudeEvent, this,
            [this, agentId](const ClaudeEvent &e) { onEvent(agentId, e); });
    connect(s.process, &ClaudeProcess::finished, this,
            [this, agentId](int code, int signal, bool requested) {
                onFinished(agentId, code, signal, requested);
            });
    connect(s.process, &ClaudeProcess::failedToStart, this, [this, agentId](const QString &why) {
        failTurn(agentId,
                 QStringLiteral("cannot start Claude Code (%1): %2").arg(m_config.claudeBin, why));
    });
    s.process->start(launch);
    m_agents.updateRuntime(agentId, [](Agent &a) { a.isProcessRunning = true; });
    return true;
}

void AgentRuntime::onEvent(const QString &agentId, const ClaudeEvent &e) {
    Session &s = session(agentId);
    const bool topLevel = e.parentToolUseId.isEmpty();
    switch (e.kind) {
    case Kind::Init:
        if (!e.sessionId.isEmpty() && m_agents.find(agentId) &&
            m_agents.find(agentId)->sessionId != e.sessionId) {
            m_agents.updateRuntime(agentId, [&](Agent &a) { a.sessionId = e.sessionId; });
            m_agents.flush(); // a restart must be able to resume: write the session id now
        }
        break;
    case Kind::TextDelta:
        if (topLevel)
            appendText(agentId, e.text);
        break;
    case Kind::ToolUse: {
        flushText(agentId);
        s.toolNames.insert(e.toolUseId, e.toolName);
        OutputChunk chunk;
        chunk.toolName = e.toolName;
        chunk.toolInput = e.toolInput;
        chunk.hasToolInput = true;
        emitChunk(agentId, chunk);
        const Agent *a = m_agents.find(agentId);
        if (Status err =
                m_tools.record(agentId, a ? a->name : QString(), e.toolName, e.toolInput, nowMs()))
            qCWarning(lcAgents).noquote() << "tool history not saved:" << err->message;
        if (topLevel)
            m_agents.updateRuntime(agentId, [&](Agent &ag) { ag.currentTool = e.toolName; });
        break;
    }
    case Kind::ToolResult: {
        flushText(agentId);
        OutputChunk chunk;
        chunk.toolName = s.toolNames.value(e.toolUseId);
        chunk.toolOutput = e.toolOutput.left(m_config.maxToolOutputInEvent);
        chunk.hasToolOutput = true;
        emitChunk(agentId, chunk);
        if (topLevel)
            m_agents.updateRuntime(agentId, [](Agent &ag) { ag.currentTool.clear(); });
        break;
    }
    case Kind::Usage: {
        qint64 limit = 0;
        m_agents.updateRuntime(agentId, [&](Agent &a) {
            a.contextUsed = e.usage.contextTokens();
            if (a.contextLimit <= 0)
                a.contextLimit = m_config.defaultContextLimit;
            limit = a.contextLimit;
        });
        Q_EMIT contextUpdated(agentId, e.usage.contextTokens(), limit);
        break;
    }
    case Kind::Result: {
        flushText(agentId);
        s.turnActive = false;
        OutputChunk last;
        last.isStreaming = false;
        if (e.isError)
            last.text = QStringLiteral("Error: ") + e.text;
        emitChunk(agentId, last);
        qint64 used = 0, limit = 0;
        m_agents.updateRuntime(agentId, [&](Agent &a) {
            a.status = e.isError ? QString(st::Error) : QString(st::Idle);
            a.lastError = e.isError ? e.text : QString();
            a.currentTask.clear();
            a.currentTool.clear();
            a.tokensUsed += e.usage.inputTokens + e.usage.outputTokens;
            a.taskCount += 1;
            a.lastActivity = nowMs();
            if (e.contextWindow > 0)
                a.contextLimit = e.contextWindow;
            used = a.contextUsed;
            limit = a.contextLimit;
        });
        if (e.contextWindow > 0)
            Q_EMIT contextUpdated(agentId, used, limit);
        Q_EMIT turnFinished(agentId, e.text, e.isError);
        startNextTurn(agentId);
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
    }
}

void AgentRuntime::onFinished(const QString &agentId, int exitCode, int signal, bool requested) {
    auto it = m_sessions.find(agentId);
    if (it == m_sessions.end())
        return;
    Session &s = **it;
    flushText(agentId);
    QString stderrTail;
    if (s.process) {
        stderrTail = s.process->stderrTail();
        s.process->deleteLater(); // never delete a sender inside its own signal
        s.process = nullptr;
    }
    m_tokens.revoke(s.token);
    s.token.clear();
    m_agents.updateRuntime(agentId, [](Agent &a) {
        a.isProcessRunning = false;
        a.currentTool.clear();
    });
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
    // Not asked for: a crash, or the CLI gave up. The next message restarts it with --resume.
    s.crashed = true;
    if (s.turnActive)
        failTurn(agentId, QStringLiteral("Claude Code %1 during the turn%2")
                              .arg(describeExit(exitCode, signal))
                              .arg(stderrTail.isEmpty()
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
    m_agents.updateRuntime(agentId, [&](Agent &a) {
        a.status = st::Error;
        a.lastError = why;
        a.currentTask.clear();
        a.currentTool.clear();
    });
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

bool AgentRuntime::sessionOnDisk(const Agent &agent) const {
    if (agent.sessionId.isEmpty() || m_config.claudeHome.isEmpty())
        return true; // nothing to resume, or nowhere to look: let the CLI decide
    return history::findSession(history::projectDirsFor(m_config.claudeHome, agent.cwd),
                                agent.sessionId)
        .has_value();
}

void AgentRuntime::emitChunk(const QString &agentId, OutputChunk chunk) {
    chunk.agentId = agentId;
    chunk.timestamp = nowMs();
    Q_EMIT output(chunk);
}

Status AgentRuntime::stop(const QString &agentId) {
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    Session &s = session(agentId);
    s.queue.clear();
    flushText(agentId);
    if (s.turnActive) {
        s.turnActive = false;
        OutputChunk last;
        last.isStreaming = false;
        last.text = QStringLiteral("[stopped]");
        emitChunk(agentId, last);
    }
    if (s.process) {
        s.exiting = true;
        s.process->stop();
    }
    Q_EMIT stopped(agentId);
    m_agents.updateRuntime(agentId, [](Agent &a) {
        a.status = st::Stopped;
        a.currentTask.clear();
        a.currentTool.clear();
    });
    return std::nullopt;
}

Status AgentRuntime::clearContext(const QString &agentId) {
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    Session &s = session(agentId);
    const bool wasWorking = s.turnActive;
    if (Status e = stop(agentId))
        return e;
    m_agents.updateRuntime(agentId, [&](Agent &a) {
        a.sessionId.clear(); // the next message starts a new conversation
        a.contextUsed = 0;
        a.status = st::Idle;
        if (wasWorking)
            a.lastError.clear();
    });
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
    if (s.process && s.modelInUse != model)
        s.respawnBeforeNextTurn = true; // takes effect on the next turn, same session
    return m_agents.flush();
}

void AgentRuntime::onPromptChanged(const QString &prompt) {
    for (const auto &s : std::as_const(m_sessions)) {
        if (s->process && s->promptInUse != prompt)
            s->respawnBeforeNextTurn = true;
    }
}

void AgentRuntime::endProcess(Session &s) {
    m_tokens.revoke(s.token);
    s.token.clear();
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
