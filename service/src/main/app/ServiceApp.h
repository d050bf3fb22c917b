#pragma once
// The composition root: builds the object graph from a ServerConfig and wires it. Tests build the
// very same graph in-process with a temp data dir and port 0.

#include "app/ServerConfig.h"
#include "storage/StartupReport.h"

#include <QLockFile>
#include <QObject>

#include <functional>
#include <memory>
#include <optional>

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class AgentTokens;
class AgentsController;
class BuildingSupervisor;
class HookRunner;
class HookStore;
class McpController;
class ShapingParts;
class BossController;
class ConfigController;
class Database;
class EventHub;
class ExecController;
class HealthController;
class HistoryController;
class HttpServer;
class NotificationChannelsController;
class NotificationService;
class NotificationsController;
class OrganizationController;
class PermissionBroker;
class PermissionHookController;
class PermissionRulesController;
class ProcessLauncher;
class EgressProxy;
class SandboxPolicy;
class HostCatalog;
class HostDirectory;
class HostsController;
class ProviderRegistry;
class RuleStore;
class RuntimeController;
class SecretStore;
class SystemPromptController;
class SystemPromptStore;
class ToolHistory;
class UsageController;
class UsageService;
class WebController;
class WorktreeController;
class WorktreeService;

struct StartFailure {
    int exitCode;
    QString message;
};

class ServiceApp final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServiceApp)
public:
    explicit ServiceApp(ServerConfig config, QObject *parent = nullptr);
    ~ServiceApp() override;

    std::optional<StartFailure> start();
    // Stops accepting, tells WebSocket clients, writes pending state. Idempotent.
    void shutdown();

    quint16 port() const { return m_port; }
    // FLOTILLA_URL, where agents call back: the port itself, or with TLS a plain loopback one.
    QString agentUrl() const { return m_agentUrl; }
    const ServerConfig &config() const { return m_config; }
    const StartupReport &startupReport() const { return m_report; }
    AgentRegistry &agents() { return *m_agents; }
    EventHub &hub() { return *m_hub; }
    HttpServer &http() { return *m_http; }
    SystemPromptStore &systemPrompt() { return *m_prompt; }
    AgentRuntime &runtime() { return *m_runtime; }
    // Agents' own credentials (tests issue one to call as an agent whose CLI never started).
    AgentTokens &agentTokens() { return *m_agentTokens; }
    // The agent CLIs the runtime can run; tests register scripted ones here.
    ProviderRegistry &providers() { return *m_providers; }
    // Usage records and budgets; tests record scripted usage here.
    UsageService &usage() { return *m_usage; }
    // Hooks and their runner; tests record runs and watch the runner here.
    HookStore &hookStore();
    HookRunner &hookRunner();
    // The buildings' processes; tests shorten their delays here.
    BuildingSupervisor &buildings();

private:
    // The steps of start(), in their order; each returns a failure or builds what it names.
    std::optional<StartFailure> loadCredentials();
    // --token-file, unless AUTH_TOKEN is set: the service token.
    std::optional<StartFailure> loadToken();
    std::optional<StartFailure> prepareDataDir();
    // app/SandboxParts.cpp
    void prepareSandbox();
    void wireSandboxEvents();
    // app/HostParts.cpp
    std::optional<StartFailure> prepareHosts();
    void wireHosts();
    void startHosts();
    std::optional<StartFailure> openDatabase();
    void registerProviders();
    std::optional<StartFailure> buildDomain();
    std::optional<StartFailure> buildShaping();
    void buildTransport();
    void buildEngine();
    void wireRuntimeEvents();
    std::optional<StartFailure> loadSecretsAndRules();
    void buildControllers();
    void buildPermissions();
    void registerRoutes();
    std::optional<StartFailure> listen();

    // The one clock every time the service records or compares is read from (base/Clock.h).
    Clock clock() const;
    std::function<QList<QByteArray>()> credentialSource() const;

    // Declared in the order start() builds them: what ~ServiceApp() does not reset first is
    // destroyed in reverse.
    ServerConfig m_config;
    StartupReport m_report;
    std::unique_ptr<QLockFile> m_lock;
    QString m_worktreesDir; // absolute: --worktrees-dir, else <data dir>-worktrees
    std::unique_ptr<ProcessLauncher> m_launcher;
    std::unique_ptr<EgressProxy> m_egress; // null where sandboxes cannot have their own network
    std::unique_ptr<SandboxPolicy> m_sandbox;
    std::unique_ptr<Database> m_db;
    // The machines agents run on (engine/hosts): the sandbox policy places processes through them.
    std::unique_ptr<HostCatalog> m_hostCatalog;
    std::unique_ptr<HostDirectory> m_hosts;
    std::unique_ptr<HostsController> m_hostsController;
    std::unique_ptr<ProviderRegistry> m_providers;
    std::unique_ptr<AgentRegistry> m_agents;
    std::unique_ptr<NotificationService> m_notifications;
    std::unique_ptr<UsageService> m_usage;
    std::unique_ptr<SystemPromptStore> m_prompt;
    // What shapes agents and runs beside them (app/ShapingParts.h): its catalogs are built with
    // the domain, before the runtime that asks them; its services with the controllers.
    std::unique_ptr<ShapingParts> m_shaping;
    std::unique_ptr<AgentTokens> m_agentTokens;
    std::unique_ptr<HttpServer> m_http;
    std::unique_ptr<EventHub> m_hub;
    std::unique_ptr<ToolHistory> m_toolHistory;
    std::unique_ptr<AgentRuntime> m_runtime;
    std::unique_ptr<WorktreeService> m_worktrees;
    std::unique_ptr<SecretStore> m_secrets;
    std::unique_ptr<RuleStore> m_permissionRules;
    std::unique_ptr<AgentsController> m_agentsController;
    std::unique_ptr<NotificationsController> m_notificationsController;
    std::unique_ptr<SystemPromptController> m_promptController;
    std::unique_ptr<ConfigController> m_configController;
    std::unique_ptr<HealthController> m_healthController;
    std::unique_ptr<HistoryController> m_historyController;
    std::unique_ptr<RuntimeController> m_runtimeController;
    std::unique_ptr<WorktreeController> m_worktreeController;
    std::unique_ptr<UsageController> m_usageController;
    std::unique_ptr<ExecController> m_execController;
    std::unique_ptr<OrganizationController> m_organizationController;
    std::unique_ptr<BossController> m_bossController;
    std::unique_ptr<NotificationChannelsController> m_channelsController;
    std::unique_ptr<PermissionBroker> m_permissions;
    std::unique_ptr<PermissionHookController> m_permissionHookController;
    std::unique_ptr<PermissionRulesController> m_permissionRulesController;
    std::unique_ptr<WebController> m_webController;
    std::unique_ptr<McpController> m_mcpController;
    quint16 m_port = 0;
    QString m_agentUrl;
    bool m_stopped = false;
};

} // namespace flotilla
