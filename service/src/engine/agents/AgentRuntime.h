#pragma once
// Runs each agent's CLI and turns its events into agent state and output events, whatever the
// provider: the CLI-specific parts (command line, protocol, session files) are a Provider's
// (agents/Provider.h), found by the agent's `provider` field.
//
// One AgentProcess per agent, spawned on the first message (resuming the agent's session when it
// has one), kept alive between turns and ended after the agent's idle timeout (its session kept:
// the next message resumes it). Messages are written one turn at a time: a message that
// arrives mid-turn waits in the agent's queue, so turn boundaries (and the moments to apply a new
// system prompt or model) are always known. Each event of the process is one update of the
// agent's state (RuntimeUpdate.h).

#include "base/Clock.h"
#include "base/Error.h"
#include "protocol/AgentSandbox.h"
#include "protocol/OutputChunk.h"
#include "protocol/Usage.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QProcessEnvironment>

#include <functional>
#include <memory>

namespace flotilla {

struct Agent;
struct AgentEvent;
struct RuntimeUpdate;
class AgentRegistry;
class AgentTokens;
class ProviderRegistry;
class AgentShaper;
class ToolHistory;
class SandboxPolicy;

struct RuntimeConfig {
    QProcessEnvironment environment;
    int maxRestartsPerMinute = 3;
    qint64 defaultContextLimit = 200'000;
    // Text deltas go out one chunk each unless `congested()` says clients are behind; then they
    // are merged for at most coalesceMs or coalesceMaxBytes, whichever comes first.
    std::function<bool()> congested;
    int coalesceMs = 50;
    qsizetype coalesceMaxBytes = 64 * 1024;
    qsizetype maxToolOutputInEvent = 64 * 1024;
    // An agent's process is ended after this long without work (no turn, no permission request,
    // nothing queued), unless the agent has its own idleTimeoutSeconds; 0: never.
    int idleTimeoutSeconds = 600;
    // Whether the agent may start a turn now (budgets, usage/UsageService): a refusal is the
    // error a new message is refused with, and holds the agent's queue until resumeQueue().
    std::function<Status(const QString &agentId)> admit;
};

class AgentRuntime final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentRuntime)
public:
    AgentRuntime(RuntimeConfig config, const ProviderRegistry &providers, AgentRegistry &agents,
                 AgentShaper &shaper, ToolHistory &tools, AgentTokens &tokens,
                 const SandboxPolicy &sandbox, Clock clock, QObject *parent = nullptr);
    ~AgentRuntime() override;

    // Starts a turn or queues the message. Returns its place in the queue (0: started now).
    Result<int> sendMessage(const QString &agentId, const QString &text);
    Status stop(const QString &agentId);
    Status clearContext(const QString &agentId);
    Status changeModel(const QString &agentId, const QString &provider, const QString &model);
    // The answer to a permissionRequested(`requestId`): it goes to the process that asked, if
    // that one still runs (a later process of the agent never gets an earlier one's answer).
    void answerPermission(const QString &agentId, const QString &requestId, bool granted,
                          const QString &reason);
    // Ends every agent process (service shutdown).
    void shutdown();
    // The sandbox the agent's processes run in (its own, or the service's default).
    AgentSandbox sandboxOf(const Agent &agent) const;
    // Runs the agent's queue if it was held by admit() and admit() now lets it.
    void resumeQueue(const QString &agentId);
    // Agents whose queued messages admit() holds.
    QStringList heldAgents() const;
    // Adds a variable to the environment of agent processes started from now on (the service's
    // own address, known only once it listens). Each process also gets FLOTILLA_AGENT_ID and its
    // own scoped FLOTILLA_TOKEN, never the service's token.
    void setEnvironmentValue(const QString &name, const QString &value) {
        m_config.environment.insert(name, value);
    }

    bool isProcessRunning(const QString &agentId) const;
    qint64 processId(const QString &agentId) const;

Q_SIGNALS:
    void output(const flotilla::OutputChunk &chunk);
    void contextUpdated(const QString &agentId, qint64 used, qint64 limit);
    void compactingChanged(const QString &agentId, bool active);
    // A turn ended: `finalText` is the CLI's result text (the last assistant answer), or the
    // error when `isError`. Orchestration (boss delegation, work plans) reads turns through this.
    void turnFinished(const QString &agentId, const QString &finalText, bool isError);
    // stop() was called (pending permission requests of the agent are denied).
    void stopped(const QString &agentId);
    // An agent's process asks through its own protocol whether it may use a tool (Codex's
    // approvals; Claude asks through its HTTP hooks instead). `requestId` is the runtime's own,
    // unique in this service; answered by answerPermission().
    void permissionRequested(const QString &agentId, const QString &requestId,
                             const QString &toolName, const QJsonObject &toolInput);
    // A turn's usage as the CLI reported it (interrupted turns included), before the agent's
    // next queued turn is considered: the usage record and budgets read it.
    void turnUsage(const QString &agentId, const flotilla::UsageTotals &usage);

private:
    struct Session;

    enum class KeepProcess { IfItCanInterrupt, No };

    Session &session(const QString &agentId);
    Status stopAgent(const QString &agentId, KeepProcess keep);
    void onInterruptTimeout(const QString &agentId);
    Error refuse(const QString &agentId, Error error);
    QString noRuntimeFor(const QString &provider) const;
    // Starts the next queued turn if it can, then (re)considers the idle timer.
    void startNextTurn(const QString &agentId);
    void tryStartTurn(const QString &agentId);
    // Idle release (AgentIdle.cpp): the per-agent timer runs exactly while the agent has a
    // process and nothing to do; `restart` takes a changed timeout from now.
    void updateIdleTimer(const QString &agentId, bool restart = false);
    void onIdleTimeout(const QString &agentId);
    int idleTimeoutMs(const QString &agentId) const;
    void recordTurnUsage(const QString &agentId, const AgentEvent &e, bool applyToAgent);
    bool spawn(const QString &agentId, Session &s, RuntimeUpdate &update);
    void connectProcess(const QString &agentId, Session &s, const QString &program);
    void onEvent(const QString &agentId, const AgentEvent &e);
    void emitEventOutput(const QString &agentId, Session &s, const AgentEvent &e);
    void onFinished(const QString &agentId, int exitCode, int signal, bool requested);
    void failTurn(const QString &agentId, const QString &why);
    void endProcess(Session &s);
    void apply(const QString &agentId, const RuntimeUpdate &update);
    void appendText(const QString &agentId, const QString &text);
    void flushText(const QString &agentId);
    void emitChunk(const QString &agentId, OutputChunk chunk);

    RuntimeConfig m_config;
    const ProviderRegistry &m_providers;
    AgentRegistry &m_agents;
    AgentShaper &m_shaper;
    ToolHistory &m_tools;
    AgentTokens &m_tokens;
    const SandboxPolicy &m_sandbox;
    Clock m_clock;
    QHash<QString, std::shared_ptr<Session>> m_sessions;
    quint64 m_permissionSerial = 0;
};

} // namespace flotilla
