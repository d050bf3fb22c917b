#pragma once
// Runs each agent's Claude Code CLI and turns its stream into agent state and output events.
//
// One ClaudeProcess per agent, spawned on the first message (with --resume when the agent has a
// session), kept alive between turns. Messages are written one turn at a time: a message that
// arrives mid-turn waits in the agent's queue, so turn boundaries (and the moments to apply a new
// system prompt or model) are always known.

#include "agents/ClaudeProcess.h"
#include "domain/Error.h"
#include "protocol/OutputChunk.h"

#include <QHash>
#include <QObject>
#include <QProcessEnvironment>

#include <functional>
#include <memory>

namespace flotilla {

struct Agent;
class AgentRegistry;
class SystemPromptStore;
class ToolHistory;
class AgentTokens;

struct RuntimeConfig {
    QString claudeBin;
    QString claudeHome; // where the CLI keeps sessions: a resume needs the file to be there
    QProcessEnvironment environment;
    int maxRestartsPerMinute = 3;
    qint64 defaultContextLimit = 200'000;
    // Text deltas go out one chunk each unless `congested()` says clients are behind; then they
    // are merged for at most coalesceMs or coalesceMaxBytes, whichever comes first.
    std::function<bool()> congested;
    int coalesceMs = 50;
    qsizetype coalesceMaxBytes = 64 * 1024;
    qsizetype maxToolOutputInEvent = 64 * 1024;
    bool permissionHooks = true; // agents ask the service through hooks (issue 4)
};

class AgentRuntime final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentRuntime)
public:
    AgentRuntime(RuntimeConfig config, AgentRegistry &agents, SystemPromptStore &prompt,
                 ToolHistory &tools, AgentTokens &tokens, QObject *parent = nullptr);
    ~AgentRuntime() override;

    // Starts a turn or queues the message. Returns its place in the queue (0: started now).
    Result<int> sendMessage(const QString &agentId, const QString &text);
    Status stop(const QString &agentId);
    Status clearContext(const QString &agentId);
    Status changeModel(const QString &agentId, const QString &provider, const QString &model);
    // Ends every agent process (service shutdown).
    void shutdown();
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

private:
    struct Session;

    Session &session(const QString &agentId);
    void startNextTurn(const QString &agentId);
    bool spawn(const QString &agentId, Session &s);
    void onEvent(const QString &agentId, const ClaudeEvent &e);
    void onFinished(const QString &agentId, int exitCode, int signal, bool requested);
    void failTurn(const QString &agentId, const QString &why);
    void endProcess(Session &s);
    void appendText(const QString &agentId, const QString &text);
    void flushText(const QString &agentId);
    void emitChunk(const QString &agentId, OutputChunk chunk);
    bool sessionOnDisk(const Agent &agent) const;
    void onPromptChanged(const QString &prompt);

    RuntimeConfig m_config;
    AgentRegistry &m_agents;
    SystemPromptStore &m_prompt;
    ToolHistory &m_tools;
    AgentTokens &m_tokens;
    QHash<QString, std::shared_ptr<Session>> m_sessions;
};

} // namespace flotilla
