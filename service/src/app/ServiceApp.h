#pragma once
// The composition root (STYLE.md #2): builds the object graph from a ServerConfig and wires it.
// Tests build the very same graph in-process with a temp data dir and port 0.

#include "app/ServerConfig.h"
#include "storage/StartupReport.h"

#include <QLockFile>
#include <QObject>

#include <memory>
#include <optional>

namespace flotilla {

class AgentTokens;

class AgentRegistry;
class BossController;
class PermissionController;
class PermissionRulesController;
class RuleStore;
class ExecController;
class SecretStore;
class OrganizationController;
class AgentRuntime;
class ProviderRegistry;
class RuntimeController;
class ToolHistory;
class AgentsController;
class ConfigController;
class Database;
class EventHub;
class HealthController;
class HistoryController;
class HttpServer;
class NotificationService;
class NotificationsController;
class NotificationChannelsController;
class SystemPromptController;
class SystemPromptStore;
class WorktreeController;
class WorktreeService;
class UsageController;
class UsageService;
class WebController;

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
    // The agent CLIs the runtime can run; tests register scripted ones here.
    ProviderRegistry &providers() { return *m_providers; }
    // Usage records and budgets; tests record scripted usage here.
    UsageService &usage() { return *m_usage; }

private:
    std::optional<StartFailure> prepareDataDir();
    // --token-file, unless AUTH_TOKEN is set: the service token.
    std::optional<StartFailure> loadToken();
    void wireRuntimeEvents();

    ServerConfig m_config;
    StartupReport m_report;
    std::unique_ptr<QLockFile> m_lock;
    std::unique_ptr<AgentTokens> m_agentTokens;
    std::unique_ptr<Database> m_db;
    std::unique_ptr<AgentRegistry> m_agents;
    std::unique_ptr<NotificationService> m_notifications;
    std::unique_ptr<UsageService> m_usage;
    std::unique_ptr<SystemPromptStore> m_prompt;
    std::unique_ptr<SecretStore> m_secrets;
    std::unique_ptr<ToolHistory> m_toolHistory;
    std::unique_ptr<ProviderRegistry> m_providers;
    std::unique_ptr<AgentRuntime> m_runtime;
    std::unique_ptr<HttpServer> m_http;
    std::unique_ptr<EventHub> m_hub;
    std::unique_ptr<AgentsController> m_agentsController;
    std::unique_ptr<NotificationsController> m_notificationsController;
    std::unique_ptr<SystemPromptController> m_promptController;
    std::unique_ptr<ConfigController> m_configController;
    std::unique_ptr<HealthController> m_healthController;
    std::unique_ptr<HistoryController> m_historyController;
    std::unique_ptr<RuntimeController> m_runtimeController;
    std::unique_ptr<ExecController> m_execController;
    std::unique_ptr<OrganizationController> m_organizationController;
    std::unique_ptr<BossController> m_bossController;
    std::unique_ptr<NotificationChannelsController> m_channelsController;
    std::unique_ptr<RuleStore> m_permissionRules;
    std::unique_ptr<PermissionController> m_permissionController;
    std::unique_ptr<PermissionRulesController> m_permissionRulesController;
    std::unique_ptr<WorktreeService> m_worktrees;
    std::unique_ptr<WorktreeController> m_worktreeController;
    std::unique_ptr<UsageController> m_usageController;
    std::unique_ptr<WebController> m_webController;
    quint16 m_port = 0;
    QString m_agentUrl;
    bool m_stopped = false;
};

} // namespace flotilla
