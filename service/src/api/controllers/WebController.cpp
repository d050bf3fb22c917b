#include "controllers/WebController.h"

#include "http/HttpServer.h"
#include "protocol/WireNames.h"

namespace flotilla {

namespace {

// Paths the page routes itself (history API), answered with the page.
QStringList pageRoutes() {
    return {QStringLiteral("/"),        QStringLiteral("/agents/:id"),
            QStringLiteral("/inbox"),   QStringLiteral("/notifications"),
            QStringLiteral("/tasks"),   QStringLiteral("/signin"),
            QStringLiteral("/library"), QStringLiteral("/library/:section"),
            QStringLiteral("/hosts")};
}

} // namespace

void WebController::registerRoutes(HttpServer &http) {
    if (!m_site.isValid())
        return;
    for (const QString &path : pageRoutes()) {
        http.route(
            Method::Get, path, [this](const ApiRequest &r) { return page(r); }, Access::Open);
    }
    http.route(
        Method::Get, QStringLiteral("/assets/:version/:name"),
        [this](const ApiRequest &r) { return asset(r); }, Access::Open);
}

// GET / (and each client-side route of the page) -> 200 page | 304
Reply WebController::page(const ApiRequest &r) const {
    return m_site.respond(m_site.page(), r);
}

// GET /assets/:version/:name -> 200 file | 304 | 404 not_found (unknown file or old version)
Reply WebController::asset(const ApiRequest &r) const {
    const web::StaticAsset *a = m_site.asset(r.param(QStringLiteral("name")));
    if (!a || r.param(QStringLiteral("version")) != m_site.version())
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("no such asset: %1").arg(r.path));
    return m_site.respond(*a, r);
}

} // namespace flotilla
