#pragma once
// GET /api/usage: usage totals grouped by agent, boss team or day (usage/UsageService.h).

#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;
class UsageService;

class UsageController final {
    Q_DISABLE_COPY_MOVE(UsageController)
public:
    explicit UsageController(UsageService &usage);

    void registerRoutes(HttpServer &http);

private:
    Reply report(const ApiRequest &request);

    UsageService &m_usage;
};

} // namespace flotilla
