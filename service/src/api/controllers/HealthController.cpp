#include "controllers/HealthController.h"

#include "http/HttpServer.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"
#include "storage/StartupReport.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;

HealthController::HealthController(const StartupReport &report, bool authRequired,
                                   QJsonObject sandbox)
    : m_report(report)
    , m_authRequired(authRequired)
    , m_sandbox(std::move(sandbox)) {
}

void HealthController::registerRoutes(HttpServer &http) {
    http.route(
        Method::Get, QStringLiteral("/api/health"),
        [this](const ApiRequest &r) { return health(r); }, Access::Open);
}

// GET /api/health -> 200 {status: ok|degraded, version, authRequired, warnings}; open, no token
Reply HealthController::health(const ApiRequest &r) const {
    QJsonObject o{{k::Status, m_report.warnings().isEmpty() ? QStringLiteral("ok")
                                                            : QStringLiteral("degraded")},
                  {k::Version, QStringLiteral(FLOTILLA_VERSION)},
                  {QStringLiteral("authRequired"), m_authRequired}};
    // Details of what start-up repaired only for an authenticated caller.
    if (r.authenticated)
        o.insert(k::Warnings, QJsonArray::fromStringList(m_report.warnings()));
    if (r.authenticated && !m_sandbox.isEmpty())
        o.insert(wire::sandbox::key::Sandbox, m_sandbox);
    return Reply::json(o);
}

} // namespace flotilla
