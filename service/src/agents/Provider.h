#pragma once
// What the runtime asks of an agent CLI's provider (Claude Code, later Codex): which binary, how
// to start it, and the process object that speaks its protocol. Each provider lives in a folder
// of its own under agents/; the composition root registers it and AgentRuntime finds it by the
// agent's `provider` field, so adding one touches neither the runtime nor its callers.

#include "agents/AgentProcess.h"

#include <QProcessEnvironment>
#include <QString>

#include <memory>
#include <vector>

namespace flotilla {

// What the runtime decided for one process; the provider adds how its CLI is started.
struct LaunchRequest {
    QString cwd;
    QString resumeId; // the agent's stored session, empty for a new one
    QString model;
    QString systemPrompt; // the global prompt, appended to the CLI's own
    // permissionMode "ask": a CLI that asks through its own protocol (Codex) is told to ask;
    // Claude asks through its hooks whatever this says (the service answers them).
    bool askPermission = true;
    // The service's environment for agents, with FLOTILLA_URL, FLOTILLA_AGENT_ID and this
    // process's own FLOTILLA_TOKEN.
    QProcessEnvironment environment;
};

class Provider {
    Q_DISABLE_COPY_MOVE(Provider)
public:
    Provider() = default;
    virtual ~Provider() = default;

    // The wire value of Agent::provider ("claude").
    virtual QString name() const = 0;
    // How messages to the user call the CLI ("Claude Code crashed ...").
    virtual QString displayName() const = 0;
    virtual QString program() const = 0;
    // Empty when program() can run; otherwise why not, for the user (cli_unavailable).
    virtual QString unavailableReason() const = 0;
    virtual AgentLaunch launch(const LaunchRequest &request) const = 0;
    // A new process object, not started yet, owned by `parent`.
    virtual AgentProcess *createProcess(QObject *parent) const = 0;
    // Whether the CLI still has `sessionId` of an agent working in `cwd`: resuming one that is
    // gone fails the turn, so the runtime starts a new session instead.
    virtual bool canResume(const QString &cwd, const QString &sessionId) const = 0;
};

// The providers this flotillad can run, keyed by name. Built once in the composition root.
class ProviderRegistry final {
    Q_DISABLE_COPY_MOVE(ProviderRegistry)
public:
    ProviderRegistry() = default;
    ~ProviderRegistry() = default;

    // Registers `provider`; one of the same name is replaced.
    void add(std::unique_ptr<Provider> provider);
    // nullptr when no provider of that name is registered (the agent cannot run here).
    const Provider *find(const QString &name) const;

private:
    std::vector<std::unique_ptr<Provider>> m_providers;
};

} // namespace flotilla
