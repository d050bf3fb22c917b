#include "controllers/NotificationChannelsController.h"

#include "http/HttpServer.h"
#include "notify/EventFeed.h"
#include "protocol/NotifyNames.h"

namespace flotilla {

namespace k = wire::key;

namespace {
const QString kBase = QStringLiteral("/api/notification-channels");
} // namespace

NotificationChannelsController::NotificationChannelsController(Database &db, NotifyConfig config,
                                                               const Clock &clock,
                                                               NotificationService &notifications,
                                                               const AgentRegistry &agents,
                                                               AgentRuntime &runtime, EventHub &hub)
    : m_channels(db, config, clock) {
    feedNotificationChannels(m_channels, notifications, agents, runtime, hub);
    m_channels.start();
}

void NotificationChannelsController::registerRoutes(HttpServer &http) {
    http.route(Method::Get, kBase, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kBase, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, kBase + QStringLiteral("/:id"),
               [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Delete, kBase + QStringLiteral("/:id"),
               [this](const ApiRequest &r) { return remove(r); });
    http.route(Method::Post, kBase + QStringLiteral("/:id/test"),
               [this](const ApiRequest &r) { return sendTest(r); });
    http.route(Method::Get, kBase + QStringLiteral("/:id/deliveries"),
               [this](const ApiRequest &r) { return deliveries(r); });
}

// GET /api/notification-channels -> 200 [channel] (with pending, failed; never a secret)
Reply NotificationChannelsController::list(const ApiRequest &) {
    return Reply::json(m_channels.list());
}

// POST /api/notification-channels {url, format?, events?, secret?, name?} -> 201 channel
// (Location: /api/notification-channels/<id>) | 400 | 409 too_many_channels | 422
Reply NotificationChannelsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_channels.create(body));
    Reply reply = Reply::json(created, 201);
    reply.headers.append({QByteArrayLiteral("Location"),
                          (kBase + QLatin1Char('/') + created.value(k::Id).toString()).toUtf8()});
    return reply;
}

// GET /api/notification-channels/:id -> 200 channel | 404
Reply NotificationChannelsController::get(const ApiRequest &r) {
    API_TRY(channel, m_channels.describe(r.param(QStringLiteral("id"))));
    return Reply::json(channel);
}

// DELETE /api/notification-channels/:id -> 204 (its outbox dropped) | 404
Reply NotificationChannelsController::remove(const ApiRequest &r) {
    API_CHECK(m_channels.remove(r.param(QStringLiteral("id"))));
    return Reply::noContent();
}

// POST /api/notification-channels/:id/test -> 202 {deliveryId} | 404
Reply NotificationChannelsController::sendTest(const ApiRequest &r) {
    API_TRY(id, m_channels.sendTest(r.param(QStringLiteral("id"))));
    return Reply::json(QJsonObject{{wire::notify::key::DeliveryId, id}}, 202);
}

// GET /api/notification-channels/:id/deliveries?limit=50 -> 200 [delivery] (pending and failed,
// newest first) | 400 | 404 | 422
Reply NotificationChannelsController::deliveries(const ApiRequest &r) {
    API_TRY(limit, r.intQuery(QStringLiteral("limit"), NotificationChannels::kDeliveriesDefault, 1,
                              NotificationChannels::kDeliveriesMax));
    API_TRY(list, m_channels.deliveries(r.param(QStringLiteral("id")), limit));
    return Reply::json(list);
}

} // namespace flotilla
