#include "controllers/NotificationsController.h"

#include "domain/NotificationService.h"
#include "http/HttpServer.h"
#include "protocol/WireNames.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;

NotificationsController::NotificationsController(NotificationService &notifications)
    : m_notifications(notifications) {
}

void NotificationsController::registerRoutes(HttpServer &http) {
    http.route(
        Method::Post, QStringLiteral("/api/notify"),
        [this](const ApiRequest &r) { return notify(r); }, Access::Agent);
    http.route(Method::Get, QStringLiteral("/api/notifications"),
               [this](const ApiRequest &r) { return list(r); });
}

// POST /api/notify {agentId, title, message, iconUrl?, imageUrl?} -> 201 {success,
// notification} | 400 | 403 (an agent's token, another agent) | 404 | 422
Reply NotificationsController::notify(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    // An agent's own token notifies for that agent only.
    if (!r.agentScope.isEmpty() && body.value(k::AgentId) != r.agentScope)
        return Error::forbidden(wire::code::Forbidden,
                                QStringLiteral("an agent's token may notify only "
                                               "for its own agent"));
    API_TRY(n, m_notifications.post(body));
    return Reply::json(QJsonObject{{k::Success, true}, {k::Notification, n.toJson()}}, 201);
}

// GET /api/notifications?limit=50 -> 200 [notification], newest first | 400 | 422
Reply NotificationsController::list(const ApiRequest &r) const {
    API_TRY(limit, r.intQuery(QStringLiteral("limit"), NotificationService::kDefaultListLimit, 1,
                              NotificationService::kRetained));
    API_TRY(notifications, m_notifications.list(limit));
    QJsonArray out;
    for (const Notification &n : notifications)
        out.append(n.toJson());
    return Reply::json(out);
}

} // namespace flotilla
