#include "controllers/ConfigController.h"

#include "http/HttpServer.h"

#include <QJsonArray>

namespace flotilla {

void ConfigController::registerRoutes(HttpServer &http) {
    http.route(Method::Get, QStringLiteral("/api/config/categories"),
               [](const ApiRequest &r) { return categories(r); });
}

// GET /api/config/categories -> 200 [name] (the spec's twelve, in its order)
Reply ConfigController::categories(const ApiRequest &) {
    static const QJsonArray names{QStringLiteral("agents"),
                                  QStringLiteral("areas"),
                                  QStringLiteral("buildings"),
                                  QStringLiteral("skills"),
                                  QStringLiteral("custom-classes"),
                                  QStringLiteral("class-instructions"),
                                  QStringLiteral("agent-prompts"),
                                  QStringLiteral("custom-3d-models"),
                                  QStringLiteral("custom-class-icons"),
                                  QStringLiteral("hooks"),
                                  QStringLiteral("permissions"),
                                  QStringLiteral("system-settings")};
    return Reply::json(names);
}

} // namespace flotilla
