#pragma once
// Which sandbox an agent's processes get and what it holds (docs/security.md "Sandbox"): the
// agent's own `sandbox`, or the service's default (--sandbox-default, for `auto` agents; `ask`
// agents confirm every command and default to none); what is writable (its working directory or
// worktree, the CLI's own state, the paths it was given), what is hidden (the service's data,
// worktrees and configuration, the user's keys and cloud credentials, the session bus) and the
// files it still reads inside them (its token header, MCP config, skills, instructions).
// base/Sandbox.h's ProcessLauncher turns the result into a bwrap command line.

#include "base/Error.h"
#include "base/Sandbox.h"
#include "protocol/Agent.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace flotilla {

// What the service keeps for itself and where the user's home is.
struct SandboxPaths {
    QString dataDir;
    QString worktreesRoot;
    QString configDir;
    QString tokenFile;
    QString home;
    QString runtimeDir; // $XDG_RUNTIME_DIR: the session bus, agent sockets; empty: none
};

// What a sandboxed process of an agent is for: the CLI itself, or a command run for it.
enum class SandboxUse { Cli, Command };

class EgressProxy;

// Where an agent with network "allowlist" may go besides its own allowHosts: the model API of its
// provider (Provider::apiEndpoints) and flotillad's own port (its callbacks, MCP).
struct SandboxEgress {
    EgressProxy *proxy = nullptr; // null: no allow-list network here
    std::function<QStringList(const Agent &)> apiEndpoints;
};

class SandboxPolicy final {
public:
    // `defaultForAuto`: "off" or "workspace" (--sandbox-default); empty: workspace when the
    // launcher's probe found a usable bwrap, else off.
    // `placement`: the hosts (engine/hosts); null: every agent runs here.
    SandboxPolicy(SandboxPaths paths, QString defaultForAuto, const ProcessLauncher &launcher,
                  SandboxEgress egress = {}, const RemotePlacement *placement = nullptr);

    const ProcessLauncher &launcher() const { return m_launcher; }
    QString defaultForAuto() const { return m_defaultForAuto; }
    // The agent's own sandbox, or the default that applies to it.
    AgentSandbox effective(const Agent &agent) const;
    // 503 sandbox_unavailable when the effective sandbox cannot start here (the probe's reason);
    // 422 invalid_sandbox for a writable path that is missing, is or holds the home directory,
    // or lies in what the service keeps for itself.
    Status check(const Agent &agent) const;
    // The spec for one process of the agent (an unconfined spec when its sandbox is off).
    // `stateDirs`: what the CLI must write besides the agent's directory (its sessions);
    // `readOnly`: files it reads inside hidden directories. Makes the directories git needs for
    // a worktree agent's branch before the bind (a missing one cannot be bound).
    SandboxSpec specFor(const Agent &agent, SandboxUse use, const QStringList &stateDirs = {},
                        const QStringList &readOnly = {}) const;
    // Where a process of the agent runs: an unset RemoteSpec for the local host, else its host's
    // (RemotePlacement::remoteFor: 422 unknown_host, 503 host_unreachable). `tag` names the
    // process's run directory there; `provider`: the CLI to find there, if any.
    Result<RemoteSpec> remoteFor(const Agent &agent, const QString &tag,
                                 const QString &provider = {}) const;
    // flotillad's own "host:port" for agents (known once it listens): on every allow-list.
    void setServiceEndpoint(const QString &endpoint) { m_serviceEndpoint = endpoint; }
    // An agent deleted: its egress proxy listener goes.
    void forget(const QString &agentId);
    // GET /api/health details.sandbox: the probe plus the default.
    QJsonObject toJson() const;

private:
    void addWorktreeGit(const Agent &agent, SandboxSpec &spec) const;
    void addNetwork(const Agent &agent, const AgentSandbox &sandbox, SandboxSpec &spec) const;
    void protectCheckoutGit(const QString &dir, SandboxSpec &spec) const;

    SandboxPaths m_paths;
    QString m_defaultForAuto;
    const ProcessLauncher &m_launcher;
    const RemotePlacement *m_placement = nullptr;
    SandboxEgress m_egress;
    QString m_serviceEndpoint;
    // The rules each agent's proxy listener was opened with: opened again only when they change
    // (that drops the live connections of the agent's other processes).
    mutable QHash<QString, QStringList> m_openRules;
};

} // namespace flotilla
