// ServiceApp's hosts (docs/api.md "Hosts"): the catalog and the directory of ssh links, built
// before the sandbox policy that places agents' processes through them; their controller and the
// registry's check with the other controllers; the connections once the port is known (each
// link forwards that host's callbacks to it).

#include "app/ServiceApp.h"

#include "base/Logging.h"
#include "controllers/HostsController.h"
#include "domain/AgentRegistry.h"
#include "hosts/HostCatalog.h"
#include "hosts/HostDirectory.h"
#include "storage/StartupReport.h"

namespace flotilla {

std::optional<StartFailure> ServiceApp::prepareHosts() {
    m_hostCatalog = std::make_unique<HostCatalog>(*m_db);
    if (Status e = m_hostCatalog->load())
        return StartFailure{exitcode::kDataDir, e->message};
    SshSettings settings;
    settings.configFile = m_config.sshConfig;
    settings.controlDir = m_config.dataDir + QStringLiteral("/ssh");
    settings.mirrorDir = m_config.dataDir + QStringLiteral("/hosts");
    // A host's link forwards a port on that machine to this service: without a token, every user
    // of that machine could drive it. No link starts then (docs/security.md "Hosts").
    if (m_config.authToken.isEmpty())
        settings.refusal = QStringLiteral(
            "not connected: flotillad runs without a token, and the connection's forward would let "
            "every user of that host drive it; start flotillad with --token-file or AUTH_TOKEN");
    // The registry is built later: the directory asks it only when a route or a link does.
    m_hosts =
        std::make_unique<HostDirectory>(*m_hostCatalog, settings, [this](const QString &host) {
            QStringList names;
            if (!m_agents)
                return names;
            for (const Agent &a : m_agents->agents()) {
                if (a.host == host)
                    names << a.name;
            }
            return names;
        });
    return std::nullopt;
}

void ServiceApp::wireHosts() {
    m_agents->setHostCheck([hosts = m_hosts.get()](const Agent &agent, bool wantsWorktree) {
        return hosts->checkAgent(agent.host, wantsWorktree);
    });
    m_hostsController = std::make_unique<HostsController>(*m_hosts, *m_hub);
}

void ServiceApp::startHosts() {
    m_hosts->setServicePort(m_port);
    m_hosts->start();
    const int count = m_hostCatalog->hosts().size();
    if (count > 0)
        qCInfo(lcApp).noquote() << "hosts:" << count << "besides local; connecting over ssh"
                                << (m_config.sshConfig.isEmpty()
                                        ? QStringLiteral("(your ssh config)")
                                        : QStringLiteral("(-F %1)").arg(m_config.sshConfig));
}

} // namespace flotilla
