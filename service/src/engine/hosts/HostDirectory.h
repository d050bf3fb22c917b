#pragma once
// The machines agents run on (docs/api.md "Hosts"): the catalog of hosts, one SshLink per host,
// and the answers the rest of the service asks of them. The launcher seam's RemotePlacement:
// an agent's CLI, its exec tasks (and later its buildings and git) reach their host through it.

#include "base/RemoteLaunch.h"
#include "hosts/HostCatalog.h"
#include "hosts/SessionMirror.h"
#include "hosts/SshLink.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>

#include <functional>
#include <memory>

namespace flotilla {

class HostDirectory final : public QObject, public RemotePlacement {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HostDirectory)
public:
    // `agentsOn`: the names of the agents whose host is the given one (for 409 and counts).
    using AgentsOn = std::function<QStringList(const QString &host)>;
    HostDirectory(HostCatalog &catalog, SshSettings settings, AgentsOn agentsOn,
                  QObject *parent = nullptr);
    ~HostDirectory() override;

    // flotillad's port, once it listens: what each link forwards that host's callbacks to.
    void setServicePort(quint16 port) { m_settings.servicePort = port; }
    // Starts a link for every stored host.
    void start();

    HostCatalog &catalog() { return m_catalog; }
    // GET /api/hosts items: the host's fields, `state`, `error`, `agents` (count); local first.
    QJsonArray toJson() const;
    // One of them; nullopt for an unknown name.
    std::optional<QJsonObject> hostJson(const QString &name) const;
    // DELETE: 409 host_in_use naming the agents still on it; 404.
    Status remove(const QString &name);
    // Whether an agent can be created on `host` as asked (AgentRegistry::HostCheck).
    Status checkAgent(const QString &host, bool wantsWorktree) const;

    // POST /api/hosts/:name/check: {reachable, latencyMs, home, user, claude, codex, git, error?}.
    using CheckDone = std::function<void(const QJsonObject &)>;
    Status check(const QString &name, CheckDone done);

    Result<RemoteSpec> remoteFor(const QString &host, const QString &tag,
                                 const QString &provider) const override;
    // Where the history routes copy `host`'s session files from and to (hosts/SessionMirror.h):
    // 422 unknown_host, 503 host_unreachable.
    Result<MirrorTarget> mirrorFor(const QString &host) const;

Q_SIGNALS:
    // host_updated: the host's JSON (fields and connection state).
    void hostChanged(const QJsonObject &host);
    void hostAdded(const QJsonObject &host);
    void hostDeleted(const QString &name);

private:
    void addLink(const HostConfig &host);
    QJsonObject describe(const HostConfig &host, const SshLink *link) const;

    HostCatalog &m_catalog;
    SshSettings m_settings;
    AgentsOn m_agentsOn;
    QHash<QString, SshLink *> m_links;
};

} // namespace flotilla
