// ServiceApp's sandbox steps (app/ServiceApp.h): the start-up probe, the launcher every child
// goes through, the policy that says what an agent's sandbox holds, the egress proxy of
// allow-list sandboxes, and what a refused connection becomes (an event, a decision-log entry).

#include "app/ServiceApp.h"

#include "agents/Provider.h"
#include "base/Logging.h"
#include "base/Sandbox.h"
#include "domain/AgentRegistry.h"
#include "hosts/HostDirectory.h"
#include "permissions/RuleStore.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"
#include "sandbox/EgressProxy.h"
#include "sandbox/SandboxPolicy.h"
#include "ws/EventHub.h"

#include <QDir>
#include <QUuid>

namespace flotilla {

// Whether agents' processes can be sandboxed here (bubblewrap, user namespaces), probed once:
// said in the log and GET /api/health; a sandbox asked for where none can start is refused with
// the reason (503 sandbox_unavailable), never run without one.
void ServiceApp::prepareSandbox() {
    m_worktreesDir =
        QDir(m_config.worktreesDir.isEmpty() ? m_config.dataDir + QStringLiteral("-worktrees")
                                             : m_config.worktreesDir)
            .absolutePath();
    m_launcher = std::make_unique<ProcessLauncher>(
        probeSandbox(m_config.bwrap), m_config.dataDir + QStringLiteral("/sandbox/empty"));
    const QString home = m_config.agentEnvironment.value(QStringLiteral("HOME"), QDir::homePath());
    SandboxPaths paths{m_config.dataDir,
                       m_worktreesDir,
                       m_config.configDir,
                       m_config.tokenFile,
                       home,
                       m_config.agentEnvironment.value(QStringLiteral("XDG_RUNTIME_DIR"))};
    // Network "allowlist": each such agent's way out (sandbox/EgressProxy.h), its sockets in the
    // data directory (private to the user; bound into the agent's sandbox one by one).
    SandboxEgress egress;
    if (m_launcher->support().networkIsolation) {
        m_egress = std::make_unique<EgressProxy>(m_config.dataDir + QStringLiteral("/sandbox/net"));
        egress.proxy = m_egress.get();
        egress.apiEndpoints = [providers = m_providers.get(),
                               env = m_config.agentEnvironment](const Agent &agent) {
            const Provider *p = providers->find(agent.provider);
            return p ? p->apiEndpoints(env) : QStringList();
        };
    }
    m_sandbox = std::make_unique<SandboxPolicy>(std::move(paths), m_config.sandboxDefault,
                                                *m_launcher, std::move(egress), m_hosts.get());
    const SandboxSupport &support = m_launcher->support();
    if (support.usable) {
        qCInfo(lcApp).noquote() << "sandbox:" << support.version
                                << QStringLiteral("(%1)").arg(support.bwrap)
                                << "works here; auto agents default to"
                                << m_sandbox->defaultForAuto();
    } else {
        qCWarning(lcApp).noquote() << "sandbox: unavailable:" << support.reason
                                   << "; auto agents default to" << m_sandbox->defaultForAuto();
        if (m_sandbox->defaultForAuto() == QLatin1String("workspace"))
            m_report.addWarning(QStringLiteral("--sandbox-default workspace, but no sandbox can "
                                               "start here: %1")
                                    .arg(support.reason));
    }
}

// A connection an allow-list sandbox refused: every client hears it (the agent's row and
// conversation say what was blocked) and the decision log keeps it beside the permission
// decisions, as a denied "network" use.
void ServiceApp::wireSandboxEvents() {
    connect(m_agents.get(), &AgentRegistry::agentDeleted, this,
            [sandbox = m_sandbox.get()](const QString &id) { sandbox->forget(id); });
    if (!m_egress)
        return;
    connect(m_egress.get(), &EgressProxy::blocked, this,
            [this](const QString &agentId, const QString &host, int port) {
                namespace sbk = wire::sandbox::key;
                const QJsonObject payload{
                    {wire::key::AgentId, agentId}, {sbk::Host, host}, {sbk::Port, port}};
                m_hub->broadcast(wire::sandbox::msg::SandboxBlocked, payload,
                                 EventHub::Delivery::Always);
                PermissionDecision d;
                d.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
                d.agentId = agentId;
                const Agent *agent = m_agents->find(agentId);
                d.agentName = agent ? agent->name : QString();
                d.tool = QStringLiteral("network");
                d.toolInput =
                    QJsonObject{{QStringLiteral("host"), host}, {QStringLiteral("port"), port}};
                d.allowed = false;
                d.by = QStringLiteral("sandbox");
                d.timestamp = clock().nowMs();
                if (Status e = m_permissionRules->log(d))
                    qCWarning(lcApp).noquote() << "sandbox refusal not logged:" << e->message;
            });
}

} // namespace flotilla
