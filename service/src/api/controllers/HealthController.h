#pragma once
// GET /api/health: whether the service is up and what start-up repaired; the one open API route.

#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;
class StartupReport;

class HealthController final {
    Q_DISABLE_COPY_MOVE(HealthController)
public:
    HealthController(const StartupReport &report, bool authRequired);

    void registerRoutes(HttpServer &http);

private:
    Reply health(const ApiRequest &request) const;

    const StartupReport &m_report;
    bool m_authRequired;
};

} // namespace flotilla
