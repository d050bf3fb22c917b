#include "controllers/HostsController.h"

#include "controllers/Replies.h"
#include "hosts/HostDirectory.h"
#include "http/HttpServer.h"
#include "protocol/HostNames.h"
#include "ws/EventHub.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::host::key;
namespace hm = wire::host::msg;
namespace hc = wire::host::code;

namespace {
const QString kName = QStringLiteral("name");

Error unknownHost(const QString &name) {
    return Error::notFound(hc::UnknownHost, QStringLiteral("no host named '%1'").arg(name));
}
} // namespace

HostsController::HostsController(HostDirectory &hosts, EventHub &hub)
    : m_hosts(hosts) {
    QObject::connect(&hosts, &HostDirectory::hostAdded, &hub,
                     [&hub](const QJsonObject &h) { hub.broadcast(hm::HostCreated, h); });
    QObject::connect(&hosts, &HostDirectory::hostChanged, &hub,
                     [&hub](const QJsonObject &h) { hub.broadcast(hm::HostUpdated, h); });
    QObject::connect(&hosts, &HostDirectory::hostDeleted, &hub, [&hub](const QString &name) {
        hub.broadcast(hm::HostDeleted, QJsonObject{{k::Name_, name}});
    });
}

void HostsController::registerRoutes(HttpServer &http) {
    const QString all = QStringLiteral("/api/hosts");
    const QString one = QStringLiteral("/api/hosts/:name");
    http.route(Method::Get, all, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, all, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, one, [this](const ApiRequest &r) { return patch(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
    http.routeAsync(Method::Post, QStringLiteral("/api/hosts/:name/check"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { check(r, done); });
}

// GET /api/hosts -> 200 [host]: "local" first, then the stored ones in creation order, each with
// its connection state.
Reply HostsController::list(const ApiRequest &) const {
    return Reply::json(m_hosts.toJson());
}

// GET /api/hosts/:name -> 200 host | 404 unknown_host
Reply HostsController::get(const ApiRequest &r) const {
    const auto host = m_hosts.hostJson(r.param(kName));
    if (!host)
        return unknownHost(r.param(kName));
    return Reply::json(*host);
}

// POST /api/hosts {name, ssh, claudeBin?, codexBin?, maxAgents?} -> 201 host (Location) | 400 |
// 409 (name taken, "local") | 422; host_created, then host_updated as it connects
Reply HostsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_hosts.catalog().create(body));
    return createdReply(*m_hosts.hostJson(created.name), QStringLiteral("/api/hosts"),
                        created.name);
}

// PATCH /api/hosts/:name {ssh?, claudeBin?, codexBin?, maxAgents?} -> 200 host | 400 | 404 | 422;
// the link reconnects with the new settings
Reply HostsController::patch(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(updated, m_hosts.catalog().patch(r.param(kName), body));
    return Reply::json(*m_hosts.hostJson(updated.name));
}

// DELETE /api/hosts/:name -> 204 | 404 | 409 host_in_use (naming the agents) | 422 ("local");
// host_deleted {name}
Reply HostsController::remove(const ApiRequest &r) {
    API_CHECK(m_hosts.remove(r.param(kName)));
    return Reply::noContent();
}

// POST /api/hosts/:name/check -> 200 {reachable, latencyMs, home, user, claude, codex, git,
// error} (a fresh ssh connection, BatchMode, strict host key) | 404
void HostsController::check(const ApiRequest &r, const ReplyCallback &done) {
    API_CHECK_ASYNC(done, m_hosts.check(r.param(kName),
                                        [done](const QJsonObject &o) { done(Reply::json(o)); }));
}

} // namespace flotilla
