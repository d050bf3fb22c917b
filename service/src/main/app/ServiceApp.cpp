#include "app/ServiceApp.h"

#include "agents/AgentRuntime.h"
#include "agents/Provider.h"
#include "agents/claude/ClaudeProvider.h"
#include "agents/codex/CodexProvider.h"
#include "app/ShapingParts.h"
#include "app/TlsFiles.h"
#include "app/TokenFile.h"
#include "base/Clock.h"
#include "base/Logging.h"
#include "base/Sandbox.h"
#include "controllers/AgentsController.h"
#include "controllers/BossController.h"
#include "controllers/ConfigController.h"
#include "controllers/ExecController.h"
#include "controllers/HealthController.h"
#include "controllers/HistoryController.h"
#include "controllers/HostsController.h"
#include "controllers/NotificationChannelsController.h"
#include "controllers/NotificationsController.h"
#include "controllers/OrganizationController.h"
#include "controllers/PermissionHookController.h"
#include "controllers/PermissionRulesController.h"
#include "controllers/RuntimeController.h"
#include "controllers/SystemPromptController.h"
#include "controllers/UsageController.h"
#include "controllers/WebController.h"
#include "controllers/WorktreeController.h"
#include "domain/AgentRegistry.h"
#include "domain/NotificationService.h"
#include "domain/SystemPromptStore.h"
#include "domain/ToolHistory.h"
#include "exec/SecretMasker.h"
#include "exec/SecretStore.h"
#include "hosts/HostDirectory.h"
#include "http/HttpServer.h"
#include "mcp/McpController.h"
#include "permissions/PermissionBroker.h"
#include "permissions/RuleStore.h"
#include "protocol/Envelope.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "sandbox/EgressProxy.h"
#include "sandbox/SandboxPolicy.h"
#include "security/AgentTokens.h"
#include "storage/Database.h"
#include "usage/UsageService.h"
#include "worktrees/WorktreeService.h"
#include "ws/EventHub.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryFile>
#include <QWebSocket>

namespace flotilla {

ServiceApp::ServiceApp(ServerConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config)) {
}

ServiceApp::~ServiceApp() {
    shutdown();
    // What shapes agents and runs beside them goes first (its controllers, hooks, buildings);
    // its catalogs and the composer stay until the runtime that asks them is gone.
    if (m_shaping)
        m_shaping->releaseServices();
    // Controllers and the hub reference the domain objects: tear down in reverse order. The
    // worktree service goes first, with the registry's hooks unset.
    m_worktreeController.reset();
    if (m_agents)
        m_agents->setWorktreeHooks(nullptr);
    m_worktrees.reset();
    m_webController.reset();
    m_mcpController.reset(); // its tools call the broker and the boss service
    m_permissionRulesController.reset();
    m_permissionHookController.reset();
    m_usageController.reset();
    m_channelsController.reset();
    m_permissions.reset(); // denies what is still pending: needs the rules, the hub, the agents
    m_bossController.reset();
    m_organizationController.reset();
    m_execController.reset();
    m_runtimeController.reset();
    m_historyController.reset();
    m_healthController.reset();
    m_configController.reset();
    m_promptController.reset();
    m_notificationsController.reset();
    m_agentsController.reset();
    m_permissionRules.reset();
    m_secrets.reset();
    m_hub.reset();
    m_http.reset();
    m_runtime.reset();
    m_shaping.reset(); // the runtime asked its composer
    m_usage.reset();
    m_toolHistory.reset();
    m_prompt.reset();
    m_notifications.reset();
    m_agents.reset();
    m_providers.reset(); // the registry and the rules read it
    m_hostsController.reset();
    m_hosts.reset(); // ends the ssh connections (their sessions ended with the runtime)
    m_hostCatalog.reset();
    m_db.reset();
    m_agentTokens.reset();
    m_sandbox.reset(); // the runtime, exec and git asked it
    m_egress.reset();
    m_launcher.reset();
}

// The data directory: created private to the user, checked writable, locked against a second
// flotillad.
std::optional<StartFailure> ServiceApp::prepareDataDir() {
    const QString dir = QDir::cleanPath(QDir(m_config.dataDir).absolutePath());
    m_config.dataDir = dir;
    if (!QDir().mkpath(dir))
        return StartFailure{exitcode::kDataDir,
                            QStringLiteral("cannot create data directory %1").arg(dir)};
    QFile::setPermissions(dir,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    {
        // Creating a file needs only an inode: write a byte too, so that a full file system is
        // reported as such here, not later as a confusing lock or database failure.
        QTemporaryFile probe(dir + QStringLiteral("/.write-probe-XXXXXX"));
        if (!probe.open() || probe.write("x", 1) != 1 || !probe.flush())
            return StartFailure{exitcode::kDataDir,
                                QStringLiteral("data directory %1 is not writable: %2")
                                    .arg(dir, probe.errorString())};
    }
    m_lock = std::make_unique<QLockFile>(dir + QStringLiteral("/flotillad.lock"));
    m_lock->setStaleLockTime(0); // only a dead owner makes it stale, never its age
    if (!m_lock->tryLock(0)) {
        if (m_lock->error() != QLockFile::LockFailedError)
            return StartFailure{exitcode::kDataDir,
                                QStringLiteral("cannot create the lock file in data directory %1 "
                                               "(is the file system full or read-only?)")
                                    .arg(dir)};
        qint64 pid = 0;
        QString hostname, appname;
        m_lock->getLockInfo(&pid, &hostname, &appname);
        return StartFailure{
            exitcode::kDataDir,
            QStringLiteral("data directory %1 is in use by another flotillad (pid %2)")
                .arg(dir)
                .arg(pid)};
    }
    return std::nullopt;
}

std::optional<StartFailure> ServiceApp::loadToken() {
    if (m_config.tokenFile.isEmpty())
        return std::nullopt;
    if (!m_config.authToken.isEmpty()) {
        qCInfo(lcApp).noquote() << "AUTH_TOKEN is set: the token file" << m_config.tokenFile
                                << "is not used";
        return std::nullopt;
    }
    auto loaded = loadOrCreateTokenFile(m_config.tokenFile);
    if (!loaded)
        return StartFailure{exitcode::kUsage, loaded.error().message};
    m_config.authToken = loaded->token;
    qCInfo(lcApp).noquote() << (loaded->created ? "created a new token in" : "token from")
                            << m_config.tokenFile;
    return std::nullopt;
}

std::optional<StartFailure> ServiceApp::start() {
    if (auto f = loadCredentials())
        return f;
    if (auto f = prepareDataDir())
        return f;
    if (auto f = openDatabase())
        return f;
    registerProviders();
    if (auto f = prepareHosts())
        return f;
    prepareSandbox();
    if (auto f = buildDomain())
        return f;
    buildTransport();
    buildEngine();
    if (auto f = loadSecretsAndRules())
        return f;
    buildControllers();
    registerRoutes();
    if (auto f = listen())
        return f;
    startHosts();         // connects to the hosts: their forwards need the port
    m_shaping->started(); // autostart buildings
    qCInfo(lcApp).noquote() << "data directory" << m_config.dataDir << "; auth"
                            << (m_config.authToken.isEmpty() ? "off" : "on")
                            << (m_config.http.tls ? "; TLS on" : "");
    return std::nullopt;
}

HookStore &ServiceApp::hookStore() {
    return m_shaping->hookStore();
}

HookRunner &ServiceApp::hookRunner() {
    return m_shaping->hookRunner();
}

BuildingSupervisor &ServiceApp::buildings() {
    return m_shaping->buildings();
}

Clock ServiceApp::clock() const {
    return Clock(m_config.clock);
}

// The service token (with a warning when there is none) and the TLS certificate, if any.
std::optional<StartFailure> ServiceApp::loadCredentials() {
    if (auto f = loadToken())
        return f;
    if (m_config.authToken.isEmpty())
        qCWarning(lcApp).noquote()
            << "no token: any local user, and any program running on this machine, can drive "
               "this service (run agents and commands as you); pass --token-file PATH or set "
               "AUTH_TOKEN";
    if (!m_config.tlsCert.isEmpty()) {
        auto tls = loadTlsConfiguration(m_config.tlsCert, m_config.tlsKey);
        if (!tls)
            return StartFailure{exitcode::kUsage, tls.error().message};
        m_config.http.tls = *tls;
    }
    return std::nullopt;
}

// The database in the data directory, repaired at open where it must be (m_report says what).
std::optional<StartFailure> ServiceApp::openDatabase() {
    auto db = Database::open(m_config.dataDir + QStringLiteral("/flotilla.db"), m_report);
    if (!db)
        return StartFailure{exitcode::kDataDir, db.error().message};
    m_db = std::move(db).value();
    return std::nullopt;
}

// The agent CLIs this service can run, by the agents' `provider` field; the first registered is
// the provider of an agent created without one. An agent whose provider is not here is refused
// (provider_unavailable). Each provider is one folder under engine/agents/.
void ServiceApp::registerProviders() {
    m_providers = std::make_unique<ProviderRegistry>();
    m_providers->add(std::make_unique<ClaudeProvider>(
        ClaudeConfig{m_config.claudeBin, m_config.claudeHome, /*permissionHooks=*/true}));
    m_providers->add(
        std::make_unique<CodexProvider>(CodexConfig{m_config.codexBin, m_config.codexHome}));
}

// The agents, notifications, usage and the global prompt, loaded from the data directory.
std::optional<StartFailure> ServiceApp::buildDomain() {
    m_agents = std::make_unique<AgentRegistry>(*m_db, *m_providers, clock());
    if (Status e = m_agents->load(m_report))
        return StartFailure{exitcode::kDataDir,
                            QStringLiteral("cannot load agents: ") + e->message};
    m_notifications = std::make_unique<NotificationService>(*m_db, *m_agents, clock());
    m_usage = std::make_unique<UsageService>(*m_db, *m_agents, *m_notifications, clock());
    if (Status e = m_usage->load())
        return StartFailure{exitcode::kDataDir, QStringLiteral("cannot read usage: ") + e->message};
    m_prompt = std::make_unique<SystemPromptStore>(
        m_config.dataDir + QStringLiteral("/system-prompt.json"), clock());
    m_prompt->load(m_report);
    return buildShaping();
}

// Skills, classes and areas, and what composes an agent's instructions and skill files from
// them (app/ShapingParts.h): agent creation applies the classes' defaults, the runtime asks before
// every turn.
std::optional<StartFailure> ServiceApp::buildShaping() {
    auto parts =
        ShapingParts::load(*m_db, *m_agents, *m_providers, *m_prompt, clock(), m_config.dataDir);
    if (!parts)
        return StartFailure{exitcode::kDataDir, parts.error().message};
    m_shaping = std::move(parts).value();
    return std::nullopt;
}

// The agents' tokens, the HTTP server and the event hub its WebSockets are handed to.
void ServiceApp::buildTransport() {
    // Agents' header files (security/AgentTokens.h), private to the user like the rest of it.
    m_agentTokens =
        std::make_unique<AgentTokens>(m_config.dataDir + QStringLiteral("/agent-tokens"));
    m_http = std::make_unique<HttpServer>(m_config.http,
                                          Authenticator(m_config.authToken, m_agentTokens.get()));
    m_hub = std::make_unique<EventHub>(m_config.hub, *m_agents, *m_notifications);
    connect(m_http.get(), &HttpServer::webSocketAccepted, m_hub.get(), &EventHub::addClient);
}

// The agent runtime, the agents' git worktrees and the runtime's events to the hub.
void ServiceApp::buildEngine() {
    m_toolHistory = std::make_unique<ToolHistory>(*m_db);
    RuntimeConfig runtimeConfig;
    runtimeConfig.environment = m_config.agentEnvironment;
    // Agents never see the service's token, whatever environment flotillad was started with:
    // each process gets its own scoped one (security/AgentTokens.h).
    runtimeConfig.environment.remove(QStringLiteral("AUTH_TOKEN"));
    runtimeConfig.environment.remove(QStringLiteral("FLOTILLA_TOKEN"));
    runtimeConfig.maxRestartsPerMinute = m_config.maxRestartsPerMinute;
    runtimeConfig.idleTimeoutSeconds = m_config.idleTimeoutSeconds;
    runtimeConfig.admit = [usage = m_usage.get()](const QString &id) { return usage->admit(id); };
    EventHub *hub = m_hub.get();
    // Deltas are merged only while some client's socket backlog is building up.
    runtimeConfig.congested = [hub, threshold = m_config.coalesceAboveBacklogBytes] {
        return hub->largestHealthyBacklog() >= threshold;
    };
    m_runtime =
        std::make_unique<AgentRuntime>(runtimeConfig, *m_providers, *m_agents, m_shaping->shaper(),
                                       *m_toolHistory, *m_agentTokens, *m_sandbox, clock());
    // Agents' git worktrees: git runs with the agents' environment (their HOME, so the user's git
    // configuration), never with the service's token.
    QProcessEnvironment gitEnvironment = m_config.agentEnvironment;
    gitEnvironment.remove(QStringLiteral("AUTH_TOKEN"));
    gitEnvironment.remove(QStringLiteral("FLOTILLA_TOKEN"));
    const QString dir = m_config.dataDir;
    const QString worktreesDir = m_worktreesDir;
    m_worktrees = std::make_unique<WorktreeService>(*m_agents, *m_runtime, *m_sandbox,
                                                    gitEnvironment, worktreesDir);
    m_agents->setWorktreeHooks(&m_worktrees->hooks());
    m_agents->setForbiddenCwdRoots({dir, worktreesDir, m_config.configDir});
    m_agents->setSandboxCheck(
        [sandbox = m_sandbox.get()](const Agent &a) { return sandbox->check(a); });
    wireRuntimeEvents();
}

// The secrets exec substitutes and the standing permission rules.
std::optional<StartFailure> ServiceApp::loadSecretsAndRules() {
    m_secrets =
        std::make_unique<SecretStore>(m_config.dataDir + QStringLiteral("/secrets.json"), clock());
    m_secrets->load();
    m_permissionRules = std::make_unique<RuleStore>(*m_db, *m_providers, clock());
    if (Status e = m_permissionRules->load())
        return StartFailure{exitcode::kDataDir, e->message};
    return std::nullopt;
}

// Every credential the service holds, for masking: its own token and the agents' live ones.
std::function<QList<QByteArray>()> ServiceApp::credentialSource() const {
    return [tokens = m_agentTokens.get(), token = m_config.authToken] {
        QList<QByteArray> values = tokens->secrets();
        if (!token.isEmpty())
            values << token;
        return values;
    };
}

// Every controller, each built from what it serves; none registers a route here.
void ServiceApp::buildControllers() {
    // Saved prompts, 3D models, hooks and buildings, before the controllers that use them.
    m_shaping->buildServices(
        ShapingServices{*m_hub, *m_runtime, *m_usage, *m_worktrees, *m_notifications, *m_secrets,
                        *m_sandbox, m_config.agentEnvironment, credentialSource(),
                        [hub = m_hub.get(), threshold = m_config.coalesceAboveBacklogBytes] {
                            return hub->largestHealthyBacklog() >= threshold;
                        }});
    m_agentsController = std::make_unique<AgentsController>(*m_agents);
    m_notificationsController = std::make_unique<NotificationsController>(*m_notifications);
    m_promptController = std::make_unique<SystemPromptController>(*m_prompt);
    m_configController = std::make_unique<ConfigController>();
    m_healthController = std::make_unique<HealthController>(m_report, !m_config.authToken.isEmpty(),
                                                            m_sandbox->toJson());
    m_historyController =
        std::make_unique<HistoryController>(*m_agents, *m_providers, m_hosts.get());
    m_runtimeController =
        std::make_unique<RuntimeController>(*m_agents, *m_runtime, *m_toolHistory);
    m_worktreeController = std::make_unique<WorktreeController>(*m_worktrees);
    m_usageController = std::make_unique<UsageController>(*m_usage);
    // The orchestration controllers own their area's services.
    m_execController = std::make_unique<ExecController>(*m_agents, *m_secrets, *m_sandbox, *m_hub,
                                                        clock(), credentialSource());
    m_organizationController = std::make_unique<OrganizationController>(
        *m_agents, *m_hub, m_shaping->areas(), *m_prompt, *m_secrets, *m_permissionRules, clock());
    m_shaping->addTransfers(m_organizationController->transfer());
    m_bossController =
        std::make_unique<BossController>(*m_agents, *m_runtime, *m_db, *m_hub, clock());
    m_channelsController = std::make_unique<NotificationChannelsController>(
        *m_db, m_config.notify, clock(), *m_notifications, *m_agents, *m_runtime, *m_hub);
    wireHosts();
    buildPermissions();
    m_webController = std::make_unique<WebController>();
    // MCP's tools run the routes above in process, through the router and its auth gate.
    m_mcpController = std::make_unique<McpController>(
        mcp::ToolDeps{[this](ApiRequest r, const ReplyCallback &done) {
                          m_http->dispatchInProcess(std::move(r), done);
                      },
                      *m_agents, m_bossController->service(), *m_permissions},
        clock());
}

// The permission broker and its two controllers. The broker comes after the controllers above:
// its slots on the registry's, the runtime's and the rules' signals run after theirs.
void ServiceApp::buildPermissions() {
    // The service's own credentials and state are off limits to agents' tool uses.
    const QString home = m_config.agentEnvironment.value(QStringLiteral("HOME"), QDir::homePath());
    QStringList guarded{m_config.dataDir, m_config.tokenFile};
    if (!m_config.configDir.isEmpty())
        guarded << m_config.configDir;
    // Logged and pending tool inputs never show a secret's value or a token.
    auto mask = [secrets = m_secrets.get(),
                 credentials = credentialSource()](const QJsonObject &in) {
        return SecretMasker(secrets->values() + credentials()).maskJson(in).toObject();
    };
    m_permissions = std::make_unique<PermissionBroker>(
        *m_agents, *m_runtime, *m_hub, *m_permissionRules, clock(), m_config.permissionTimeoutMs,
        ProtectedPaths(guarded, home, QCoreApplication::applicationPid()), std::move(mask));
    m_permissionHookController =
        std::make_unique<PermissionHookController>(*m_agents, *m_permissions);
    m_permissionRulesController = std::make_unique<PermissionRulesController>(
        *m_permissionRules, *m_permissions, *m_agents, *m_hub);
    wireSandboxEvents();
}

// Every route of the port, in one place. The order is the router's (and the REST fuzzer's route
// numbers): keep it.
void ServiceApp::registerRoutes() {
    HttpServer &http = *m_http;
    m_agentsController->registerRoutes(http);
    m_notificationsController->registerRoutes(http);
    m_promptController->registerRoutes(http);
    m_configController->registerRoutes(http);
    m_healthController->registerRoutes(http);
    m_historyController->registerRoutes(http);
    m_runtimeController->registerRoutes(http);
    m_worktreeController->registerRoutes(http);
    m_usageController->registerRoutes(http);
    m_execController->registerRoutes(http);
    m_organizationController->registerRoutes(http);
    m_bossController->registerRoutes(http);
    m_channelsController->registerRoutes(http);
    m_hostsController->registerRoutes(http);
    m_permissionHookController->registerRoutes(http);
    m_permissionRulesController->registerRoutes(http);
    // The web page on the same port: GET /, its client-side routes and /assets/.
    m_webController->registerRoutes(http);
    // Classes, skills, saved prompts, 3D models, hooks, buildings.
    m_shaping->registerRoutes(http);
    // MCP (POST/DELETE /mcp): last, its tools run the routes above.
    m_mcpController->registerRoutes(http);
}

// Binds the port (and with TLS the agents' plain loopback one) and tells the runtime where
// agents call back (FLOTILLA_URL).
std::optional<StartFailure> ServiceApp::listen() {
    auto port = m_http->listen(m_config.host, m_config.port);
    if (!port)
        return StartFailure{exitcode::kListen, port.error().message};
    m_port = *port;
    // Agents call back (report-task, permission hooks) on loopback when bound to every interface.
    const QHostAddress &host = m_config.host;
    const bool anyAddress = host == QHostAddress(QHostAddress::Any) ||
                            host == QHostAddress(QHostAddress::AnyIPv4) ||
                            host == QHostAddress(QHostAddress::AnyIPv6);
    const QString hostText = anyAddress ? QStringLiteral("127.0.0.1")
                             : host.protocol() == QAbstractSocket::IPv6Protocol
                                 ? QStringLiteral("[%1]").arg(host.toString())
                                 : host.toString();
    m_agentUrl = QStringLiteral("http://%1:%2").arg(hostText).arg(m_port);
    if (m_config.http.tls) {
        // The port speaks TLS; agents' curl calls (hooks, report-task) would not trust a
        // self-signed certificate: they get a plain listener of their own on loopback.
        auto agentPort = m_http->listenForAgents(QHostAddress(QHostAddress::LocalHost), 0);
        if (!agentPort)
            return StartFailure{exitcode::kListen, agentPort.error().message};
        m_agentUrl = QStringLiteral("http://127.0.0.1:%1").arg(*agentPort);
    }
    m_runtime->setEnvironmentValue(QStringLiteral("FLOTILLA_URL"), m_agentUrl);
    m_sandbox->setServiceEndpoint(endpointOf(m_agentUrl)); // allow-list sandboxes call back here
    return std::nullopt;
}

// The runtime's, the usage service's and the worktrees' signals as hub events, and stop_agent.
void ServiceApp::wireRuntimeEvents() {
    namespace m = wire::msg;
    namespace k = wire::key;
    EventHub *hub = m_hub.get();
    AgentRuntime *runtime = m_runtime.get();
    connect(runtime, &AgentRuntime::output, hub, [hub](const OutputChunk &chunk) {
        hub->broadcast(m::Output, chunk.toJson(),
                       chunk.isStreaming ? EventHub::Delivery::Droppable
                                         : EventHub::Delivery::Always);
    });
    connect(runtime, &AgentRuntime::contextUpdated, hub,
            [hub](const QString &id, qint64 used, qint64 limit) {
                hub->broadcast(m::ContextUpdate, QJsonObject{{k::AgentId, id},
                                                             {k::ContextUsed, used},
                                                             {k::ContextLimit, limit}});
            });
    connect(runtime, &AgentRuntime::compactingChanged, hub, [hub](const QString &id, bool active) {
        hub->broadcast(m::CompactingStatus, QJsonObject{{k::AgentId, id}, {k::Active, active}});
    });
    // Usage and budgets: each turn recorded before the next queued one is considered; a raised
    // budget (or a new day) lets held queues run.
    UsageService *usage = m_usage.get();
    connect(runtime, &AgentRuntime::turnUsage, usage, &UsageService::record);
    connect(usage, &UsageService::budgetExceeded, hub, [hub](const QJsonObject &payload) {
        hub->broadcast(wire::usage::msg::BudgetExceeded, payload, EventHub::Delivery::Always);
    });
    connect(usage, &UsageService::budgetsChanged, runtime, [runtime] {
        for (const QString &id : runtime->heldAgents())
            runtime->resumeQueue(id);
    });
    connect(m_worktrees.get(), &WorktreeService::diffChanged, hub,
            [hub](const QString &id, const QJsonArray &files) {
                hub->broadcast(wire::worktree::msg::WorktreeDiffChanged,
                               QJsonObject{{k::AgentId, id}, {wire::worktree::key::Files, files}});
            });
    // stop_agent {agentId}: the WebSocket twin of POST /api/agents/bulk/stop for one agent.
    hub->registerIncoming(
        m::StopAgent, {{k::AgentId}, [hub, runtime](QWebSocket *ws, const QJsonObject &payload) {
                           if (Status e = runtime->stop(payload.value(k::AgentId).toString()))
                               hub->sendTo(ws, m::Error, errorPayload(e->message, e->code));
                       }});
}

void ServiceApp::shutdown() {
    if (m_stopped || !m_http)
        return;
    m_stopped = true;
    m_http->stopListening();
    m_shaping->stopHooks();     // no hook runs for what the shutdown itself causes
    m_runtime->shutdown();      // no agent process outlives the service
    m_shaping->stopBuildings(); // nor a building's process group
    m_hub->closeAll();
    if (Status e = m_agents->flush())
        qCCritical(lcApp).noquote() << "could not save agent state on shutdown:" << e->message;
    qCInfo(lcApp) << "stopped";
}

} // namespace flotilla
