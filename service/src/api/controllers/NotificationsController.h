#pragma once
// POST /api/notify and GET /api/notifications: agents' notifications to the user.

#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;
class NotificationService;

class NotificationsController final {
    Q_DISABLE_COPY_MOVE(NotificationsController)
public:
    explicit NotificationsController(NotificationService &notifications);

    void registerRoutes(HttpServer &http);

private:
    Reply notify(const ApiRequest &request);
    Reply list(const ApiRequest &request) const;

    NotificationService &m_notifications;
};

} // namespace flotilla
