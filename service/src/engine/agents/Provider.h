#pragma once
// What the service asks of an agent CLI's provider (Claude Code, Codex): which binary, how to
// start it, the process object that speaks its protocol, the model an agent gets by default,
// where the CLI keeps its sessions and how they read, and what its tools do. Each provider lives
// in a folder of its own under agents/; the composition root registers it and everything else
// finds it by the agent's `provider` field (ProviderRegistry), so adding one touches neither the
// runtime, the history, the permission rules nor agent validation.

#include "agents/AgentProcess.h"
#include "agents/ToolKinds.h"
#include "domain/ProviderCatalog.h"
#include "history/SessionSource.h"

#include <QByteArray>
#include <QHash>
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
    QString systemPrompt; // the agent's composed instructions, appended to the CLI's own
    // What shapes it besides (agents/AgentShaper.h): the skills directory, empty for none, and
    // the tools it may or may not use (by the CLI's own rules; empty: the CLI's defaults).
    QString skillsDir;
    QString systemPromptFile; // systemPrompt in a file, when it is too long for argv
    QStringList allowedTools;
    QStringList disallowedTools;
    // permissionMode "ask": a CLI that asks through its own protocol (Codex) is told to ask;
    // Claude asks through its hooks whatever this says (the service answers them).
    bool askPermission = true;
    // The service's environment for agents, with FLOTILLA_URL, FLOTILLA_AGENT_ID and
    // FLOTILLA_AUTH_HEADER_FILE (its token is in that file, never in the environment).
    QProcessEnvironment environment;
    // Flotilla's MCP server (POST /mcp, protocol/McpNames.h) for this process, with its own
    // token: where it is (empty: no MCP server), the same as a standard mcpServers JSON file
    // (0600, removed with the token; for a CLI that reads one: Claude's --mcp-config), and the
    // token itself, for a CLI configured through its protocol (Codex's thread/start), which
    // must keep it in memory: never on argv, in the environment or in a file of its own.
    QString mcpUrl;
    QString mcpConfigFile;
    QByteArray mcpToken;
    // The process runs inside the service's sandbox (base/Sandbox.h): a CLI with a sandbox of its
    // own turns it off (nested, it cannot start as root, and ours already confines it) and says
    // which directories it writes (AgentLaunch::stateDirs).
    bool sandboxed = false;
    // Not sandboxed, on a machine where user namespaces are refused (SandboxSupport::
    // namespacesBlocked): a CLI whose own sandbox needs them either runs unconfined, if the agent
    // allows it (AgentSandbox::allowUnconfined), or says in AgentLaunch::warning what will fail.
    bool namespacesBlocked = false;
    bool allowUnconfined = false;
};

class Provider {
    Q_DISABLE_COPY_MOVE(Provider)
public:
    Provider() = default;
    virtual ~Provider() = default;

    // The wire value of Agent::provider (wire::provider, protocol/WireNames.h).
    virtual QString name() const = 0;
    // How messages to the user call the CLI ("Claude Code crashed ...").
    virtual QString displayName() const = 0;
    // The model of an agent created without one (POST /api/agents, docs/api.md).
    virtual QString defaultModel() const = 0;
    virtual QString program() const = 0;
    // Empty when program() can run; otherwise why not, for the user (cli_unavailable).
    virtual QString unavailableReason() const = 0;
    virtual AgentLaunch launch(const LaunchRequest &request) const = 0;
    // A new process object, not started yet, owned by `parent`.
    virtual AgentProcess *createProcess(QObject *parent) const = 0;
    // Whether the CLI still has `sessionId` of an agent working in `cwd`: resuming one that is
    // gone fails the turn, so the runtime starts a new session instead.
    virtual bool canResume(const QString &cwd, const QString &sessionId) const = 0;
    // Where the CLI keeps an agent's sessions and how their lines read, for the history routes
    // (history/SessionSource.h). Empty (the default): a CLI whose history the service cannot
    // read; its agents' history is empty.
    virtual history::SessionFinder sessionFinder() const { return {}; }
    // The same for a copy of another machine's sessions (engine/hosts/SessionMirror): the CLI's
    // layout under `userHome` instead of this machine's CLI home. Empty: none.
    virtual history::SessionFinder sessionFinderAt(const QString &userHome) const {
        Q_UNUSED(userHome)
        return {};
    }
    // Where, relative to a user's home, the CLI keeps what sessionFinderAt reads for an agent in
    // `cwd`: what a mirror copies from another host (directories searched to `maxDepth` for
    // files named like `pattern`).
    struct SessionLocation {
        QString dir;
        int maxDepth = 1;
        QString pattern;
    };
    virtual QList<SessionLocation> sessionLocations(const QString &cwd) const {
        Q_UNUSED(cwd)
        return {};
    }
    // The kinds of the CLI's tools that permission rules match by more than their name: which
    // run commands and which edit files (permissions/ToolKinds.h). Tools left out (the default:
    // all) are matched by name only. Read once, when the provider is registered.
    virtual QHash<QString, rules::ToolKind> toolKinds() const { return {}; }
    // Where the CLI reaches its model API ("host:port"), given the agents' environment: what a
    // sandbox with network "allowlist" lets through besides the agent's own allowHosts.
    virtual QStringList apiEndpoints(const QProcessEnvironment &environment) const {
        Q_UNUSED(environment)
        return {};
    }
};

// "host:port" of a URL (the scheme's port when it has none); empty for anything else.
QString endpointOf(const QString &url);

// The providers this flotillad can run, keyed by name. Built once in the composition root; agent
// validation reads it as the ProviderCatalog and the permission rules as their ToolKinds.
class ProviderRegistry final : public ProviderCatalog, public rules::ToolKinds {
    Q_DISABLE_COPY_MOVE(ProviderRegistry)
public:
    ProviderRegistry() = default;
    ~ProviderRegistry() override = default;

    // Registers `provider`. One of the same name is replaced in its place, so the order (and the
    // default provider) stays.
    void add(std::unique_ptr<Provider> provider);
    // nullptr when no provider of that name is registered (the agent cannot run here).
    const Provider *find(const QString &name) const;

    // ProviderCatalog: the names in registration order; the first registered is the default.
    QStringList providerNames() const override;
    QString defaultProvider() const override;
    QString defaultModel(const QString &provider) const override;

    // rules::ToolKinds: what the providers declare; for a name two of them declare, the one
    // registered first.
    rules::ToolKind kindOf(const QString &tool) const override;

private:
    std::vector<std::unique_ptr<Provider>> m_providers;
    // Every provider's toolKinds(), merged when one is added: a permission check asks once per
    // rule, so this is a single lookup.
    QHash<QString, rules::ToolKind> m_toolKinds;
};

} // namespace flotilla
