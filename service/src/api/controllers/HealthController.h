#pragma once
// GET /api/health: whether the service is up and what start-up repaired; the one open API route.

#include "http/ApiTypes.h"

#include <QJsonObject>

namespace flotilla {

class HttpServer;
class StartupReport;

class HealthController final {
    Q_DISABLE_COPY_MOVE(HealthController)
public:
    // `sandbox`: what the start-up probe found (sandbox/SandboxPolicy.h), for authenticated
    // callers.
    HealthController(const StartupReport &report, bool authRequired, QJsonObject sandbox = {});

    void registerRoutes(HttpServer &http);

private:
    Reply health(const ApiRequest &request) const;

    const StartupReport &m_report;
    bool m_authRequired;
    QJsonObject m_sandbox;
};

} // namespace flotilla
