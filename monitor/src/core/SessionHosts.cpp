// MonitorSession: the hosts agents run on (docs/api.md "Hosts"): the list, loaded on every
// connection and kept by host_created / host_updated / host_deleted, the agents on each, and the
// calls that add, remove and check one.

#include "core/MonitorLog.h"
#include "core/MonitorSession.h"
#include "protocol/HostNames.h"

#include <QUrl>

#include <utility>

namespace flotilla::monitor {

namespace hk = ::flotilla::wire::host::key;

using client::RestReply;

namespace {
QString hostPath(const QString &name, QLatin1String tail = {}) {
    return QStringLiteral("/api/hosts/") + QString::fromLatin1(QUrl::toPercentEncoding(name)) +
           tail;
}
} // namespace

// GET /api/hosts -> 200 [host], "local" first
void MonitorSession::loadHosts() {
    m_hostsLoading = true;
    m_client.get(QStringLiteral("/api/hosts"), [this](const RestReply &r) {
        m_hostsLoading = false;
        const auto pending = std::exchange(m_hostsPending, {});
        if (!r.ok()) {
            // An older service without hosts, or refused: not the user's action, so logged only;
            // the agents all read "local" then.
            qCInfo(lcMonitor) << "load hosts failed:" << r.status << r.error;
            return;
        }
        m_hosts.applySnapshot(r.body.array());
        for (const auto &[deleted, payload] : pending) {
            if (deleted)
                m_hosts.remove(payload.value(hk::Name_).toString());
            else
                m_hosts.upsert(payload);
        }
    });
}

void MonitorSession::onHostChanged(const QJsonValue &payload) {
    const QJsonObject host = payload.toObject();
    if (m_hostsLoading)
        m_hostsPending.append({false, host});
    m_hosts.upsert(host);
}

void MonitorSession::onHostDeleted(const QJsonValue &payload) {
    const QJsonObject o = payload.toObject();
    if (m_hostsLoading)
        m_hostsPending.append({true, o});
    m_hosts.remove(o.value(hk::Name_).toString());
}

void MonitorSession::countAgentsOnHosts() {
    QHash<QString, int> counts;
    for (int row = 0; row < m_agents.rowCount(); ++row)
        ++counts[m_agents.index(row, AgentsModel::Host).data().toString()];
    m_hosts.setAgentCounts(counts);
}

// POST /api/hosts {name, ssh, claudeBin?, codexBin?, maxAgents?} -> 201 host | 400 | 409 | 422
void MonitorSession::createHost(const QJsonObject &fields, Done done) {
    m_client.post(QStringLiteral("/api/hosts"), fields,
                  [this, done = std::move(done)](const RestReply &r) {
                      if (r.ok())
                          m_hosts.upsert(r.body.object());
                      if (done)
                          done(r);
                  });
}

// DELETE /api/hosts/:name -> 204 | 404 | 409 host_in_use (names the agents) | 422 (local)
void MonitorSession::deleteHost(const QString &name, Done done) {
    m_client.del(hostPath(name), [this, name, done = std::move(done)](const RestReply &r) {
        if (r.ok())
            m_hosts.remove(name);
        if (done)
            done(r);
    });
}

// POST /api/hosts/:name/check -> 200 {reachable, latencyMs, home, user, claude, codex, git,
// error} | 404
void MonitorSession::checkHost(const QString &name, Done done) {
    m_client.post(hostPath(name, QLatin1String("/check")), {},
                  [this, name, done = std::move(done)](const RestReply &r) {
                      if (r.ok())
                          m_hosts.setCheck(name, r.body.object());
                      if (done)
                          done(r);
                  });
}

} // namespace flotilla::monitor
