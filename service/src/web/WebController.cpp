#include "web/WebController.h"

#include "http/HttpServer.h"
#include "protocol/WireNames.h"

namespace flotilla {

QStringList WebController::pageRoutes() {
    return {QStringLiteral("/"),      QStringLiteral("/agents/:id"),
            QStringLiteral("/inbox"), QStringLiteral("/notifications"),
            QStringLiteral("/tasks"), QStringLiteral("/signin")};
}

WebController::WebController(HttpServer &http, QObject *parent)
    : QObject(parent) {
    if (!m_site.isValid())
        return;
    // GET / (and each client-side route) -> 200 page | 304
    for (const QString &path : pageRoutes()) {
        http.route(
            Method::Get, path,
            [this](const ApiRequest &r) { return m_site.respond(m_site.page(), r); }, Access::Open);
    }
    // GET /assets/:version/:name -> 200 file | 304 | 404 not_found (unknown file or old version)
    http.route(
        Method::Get, QStringLiteral("/assets/:version/:name"),
        [this](const ApiRequest &r) -> Reply {
            const web::StaticAsset *a = m_site.asset(r.param(QStringLiteral("name")));
            if (!a || r.param(QStringLiteral("version")) != m_site.version())
                return Error::notFound(wire::code::NotFound,
                                       QStringLiteral("no such asset: %1").arg(r.path));
            return m_site.respond(*a, r);
        },
        Access::Open);
}

} // namespace flotilla
