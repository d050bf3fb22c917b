#pragma once
// Small API areas, one controller each: notifications, the global system prompt, config, health.

#include <QObject>

namespace flotilla {

class HttpServer;
class NotificationService;
class StartupReport;
class SystemPromptStore;

// POST /api/notify, GET /api/notifications
class NotificationsController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationsController)
public:
    NotificationsController(HttpServer &http, NotificationService &notifications,
                            QObject *parent = nullptr);
};

// GET/POST/DELETE /api/agents/system-settings/prompt
class SystemPromptController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SystemPromptController)
public:
    SystemPromptController(HttpServer &http, SystemPromptStore &store, QObject *parent = nullptr);
};

// GET /api/config/categories
class ConfigController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConfigController)
public:
    explicit ConfigController(HttpServer &http, QObject *parent = nullptr);
};

// GET /api/health (the one open route)
class HealthController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HealthController)
public:
    HealthController(HttpServer &http, const StartupReport &report, bool authRequired,
                     QObject *parent = nullptr);
};

} // namespace flotilla
