#pragma once
// One running agent CLI: an object that owns its child process and reports through signals, which
// the runtime drives without knowing which CLI it is. Each provider implements it over its own
// protocol; the runtime only starts it, hands it user messages one turn at a time, and reads typed
// AgentEvents back.

#include "agents/AgentEvent.h"
#include "base/Sandbox.h"

#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

namespace flotilla {

// Everything needed to start one agent process; Provider::launch() fills it.
struct AgentLaunch {
    QString program;
    QStringList arguments;
    QString cwd;
    QProcessEnvironment environment;
    // Also in `arguments` for a CLI that takes them on its command line (Claude); a CLI driven
    // through a protocol (Codex's thread/start) gets them from the process after it started.
    QString resumeId; // empty: a new session
    QString model;
    QString systemPrompt;
    QString systemPromptFile; // the same, in a file, for a CLI that takes it on argv (Claude)
    // A directory of the agent's skills (agents/AgentShaper.h); empty: none. Claude takes it
    // as a plugin (--plugin-dir), Codex its skills/ folder as an extra skills root.
    QString skillsDir;
    // For a CLI that takes them through its protocol (Codex's thread/start): when to ask before
    // running a tool, and where its commands may write.
    QString approvalPolicy;
    QString sandbox;
    // Flotilla's MCP server for a CLI configured through its protocol (Codex's thread/start
    // config): its URL and this process's token, held in memory and written only to the CLI's
    // stdin. Empty: none. A CLI that reads a config file (Claude) has it in `arguments`.
    QString mcpUrl;
    QByteArray mcpToken;
    // The running cost total a resumed CLI starts from (Claude restores its session's last
    // `cost-state`): its turns' costs are what each adds to it.
    double resumedCostUsd = 0;
    // Inside the service's sandbox (LaunchRequest::sandboxed): the CLI's own sandbox stands down.
    bool sandboxed = false;
    // What the CLI writes besides the agent's directory (its sessions and state): writable in
    // the sandbox.
    QStringList stateDirs;
    // How the process starts, decided by the runtime from the above (program, arguments, cwd and
    // environment, perhaps inside bwrap): what AgentProcess::start hands its LineProcess.
    LaunchPlan plan;
    // What the user should know about how it runs (the agent's lastError with every turn): e.g.
    // a CLI sandbox that cannot start here.
    QString warning;
};

class AgentProcess : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentProcess)
public:
    using QObject::QObject;
    ~AgentProcess() override = default; // implementations end their whole process group

    virtual void start(const AgentLaunch &launch) = 0;
    // Starts a turn with the user's message. The runtime sends one at a time: the next only
    // after a TurnEnded event.
    virtual void sendUserMessage(const QString &text) = 0;
    // Ends the current turn. True: the process stays and the turn ends with a TurnEnded event
    // (Codex's turn/interrupt), so the next message needs no start-up. False: the CLI has no
    // interrupt verb (Claude's stream-json mode) or nothing to interrupt yet, so the whole
    // process was ended and finished() follows.
    virtual bool interruptTurn() = 0;
    // SIGTERM to the group, SIGKILL after `graceMs`. finished() follows.
    virtual void stop(int graceMs = 2000) = 0;
    // Takes a new model and system prompt for the turns from now on, between turns, without a
    // restart if the CLI can (Codex: the model with each turn/start, the prompt as a developer
    // message appended to the thread). False: the process must be replaced (Claude's model and
    // prompt are command-line arguments).
    virtual bool reconfigure(const QString &model, const QString &systemPrompt) {
        Q_UNUSED(model)
        Q_UNUSED(systemPrompt)
        return false;
    }
    virtual bool isRunning() const = 0;
    virtual qint64 pid() const = 0;
    virtual QString stderrTail() const = 0;
    // The answer to a permissionRequested() of this process. Claude never asks this way.
    virtual void answerPermission(const QString &requestId, bool granted,
                                  const QString &reason) = 0;

Q_SIGNALS:
    // Not named `event`: that would hide QObject::event (-Woverloaded-virtual).
    void agentEvent(const flotilla::AgentEvent &event);
    // A normal exit has `signal` 0 and its exit code; a process killed by a signal has that
    // signal's number (and exitCode -1). `requested` when stop() was called.
    void finished(int exitCode, int signal, bool requested);
    void failedToStart(const QString &why);
    // The CLI asks, through its own protocol, whether it may use a tool (Codex's approval
    // requests). Claude asks through its hooks over HTTP instead (permissions/), never here.
    void permissionRequested(const QString &requestId, const QString &toolName,
                             const QJsonObject &toolInput);
};

} // namespace flotilla
