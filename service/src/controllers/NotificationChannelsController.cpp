#include "controllers/NotificationChannelsController.h"

#include "http/HttpServer.h"
#include "notify/EventFeed.h"
#include "protocol/NotifyNames.h"

namespace flotilla {

namespace k = wire::key;

NotificationChannelsController::NotificationChannelsController(const OrchestrationDeps &deps,
                                                               NotificationService &notifications,
                                                               NotifyConfig config, QObject *parent)
    : QObject(parent)
    , m_channels(deps.db, config) {
    HttpServer &http = deps.http;
    const QString base = QStringLiteral("/api/notification-channels");
    NotificationChannels *channels = &m_channels;

    // GET /api/notification-channels -> 200 [channel] (with pending, failed; never a secret)
    http.route(Method::Get, base,
               [channels](const ApiRequest &) { return Reply::json(channels->list()); });

    // POST /api/notification-channels {url, format?, events?, secret?, name?} -> 201 channel
    // | 400 | 409 too_many_channels | 422
    http.route(Method::Post, base, [channels, base](const ApiRequest &r) -> Reply {
        const auto body = r.jsonObject();
        if (!body)
            return body.error();
        const auto created = channels->create(*body);
        if (!created)
            return created.error();
        Reply reply = Reply::json(*created, 201);
        reply.headers.append(
            {QByteArrayLiteral("Location"),
             (base + QLatin1Char('/') + created->value(k::Id).toString()).toUtf8()});
        return reply;
    });

    // GET /api/notification-channels/:id -> 200 channel | 404
    http.route(Method::Get, base + QStringLiteral("/:id"),
               [channels](const ApiRequest &r) -> Reply {
                   const auto channel = channels->describe(r.param(QStringLiteral("id")));
                   if (!channel)
                       return channel.error();
                   return Reply::json(*channel);
               });

    // DELETE /api/notification-channels/:id -> 204 (its outbox dropped) | 404
    http.route(Method::Delete, base + QStringLiteral("/:id"),
               [channels](const ApiRequest &r) -> Reply {
                   if (Status e = channels->remove(r.param(QStringLiteral("id"))))
                       return *e;
                   return Reply::noContent();
               });

    // POST /api/notification-channels/:id/test -> 202 {deliveryId} | 404
    http.route(Method::Post, base + QStringLiteral("/:id/test"),
               [channels](const ApiRequest &r) -> Reply {
                   const auto id = channels->sendTest(r.param(QStringLiteral("id")));
                   if (!id)
                       return id.error();
                   return Reply::json(QJsonObject{{wire::notify::key::DeliveryId, *id}}, 202);
               });

    // GET /api/notification-channels/:id/deliveries?limit=50 -> 200 [delivery] (pending and
    // failed, newest first) | 400 | 404 | 422
    http.route(Method::Get, base + QStringLiteral("/:id/deliveries"),
               [channels](const ApiRequest &r) -> Reply {
                   const auto limit =
                       r.intQuery(QStringLiteral("limit"), NotificationChannels::kDeliveriesDefault,
                                  1, NotificationChannels::kDeliveriesMax);
                   if (!limit)
                       return limit.error();
                   const auto list = channels->deliveries(r.param(QStringLiteral("id")), *limit);
                   if (!list)
                       return list.error();
                   return Reply::json(*list);
               });

    feedNotificationChannels(m_channels, notifications, deps.agents, deps.runtime, deps.hub);
    m_channels.start();
}

} // namespace flotilla
