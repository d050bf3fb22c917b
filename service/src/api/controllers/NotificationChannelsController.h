#pragma once
// GET/POST/DELETE /api/notification-channels, its :id/test and :id/deliveries. Owns the channels
// service and feeds it the service's events (notify/EventFeed.h).

#include "http/ApiTypes.h"
#include "notify/NotificationChannels.h"

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class Database;
class EventHub;
class HttpServer;
class NotificationService;

class NotificationChannelsController final {
    Q_DISABLE_COPY_MOVE(NotificationChannelsController)
public:
    NotificationChannelsController(Database &db, NotifyConfig config, const Clock &clock,
                                   NotificationService &notifications, const AgentRegistry &agents,
                                   AgentRuntime &runtime, EventHub &hub);

    void registerRoutes(HttpServer &http);

    NotificationChannels &channels() { return m_channels; }

private:
    Reply list(const ApiRequest &request);
    Reply create(const ApiRequest &request);
    Reply get(const ApiRequest &request);
    Reply remove(const ApiRequest &request);
    Reply sendTest(const ApiRequest &request);
    Reply deliveries(const ApiRequest &request);

    NotificationChannels m_channels;
};

} // namespace flotilla
