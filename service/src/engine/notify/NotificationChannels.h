#pragma once
// Outgoing notification channels, the service behind /api/notification-channels: the
// channels, their persisted outbox and the deliverer. publish() is how an event enters: one
// outbox item per channel that wants it, stored before any attempt (docs/api.md).

#include "base/Clock.h"
#include "base/Error.h"
#include "notify/ChannelStore.h"
#include "notify/Deliverer.h"
#include "notify/NotifyConfig.h"
#include "notify/Outbox.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

namespace flotilla {

class Database;

class NotificationChannels final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationChannels)
public:
    static constexpr int kDeliveriesDefault = 50;
    static constexpr int kDeliveriesMax = 1000;

    NotificationChannels(Database &db, NotifyConfig config, const Clock &clock,
                         QObject *parent = nullptr);

    // Reads the channels and sends what the last run left pending.
    void start();

    // Each channel as the API shows it, with {pending, failed} from the outbox.
    QJsonArray list();
    Result<QJsonObject> describe(const QString &id);
    Result<QJsonObject> create(const QJsonObject &body);
    Status remove(const QString &id);
    // Enqueues a `test` delivery to the channel whatever its events; returns its delivery id.
    Result<QString> sendTest(const QString &id);
    Result<QJsonArray> deliveries(const QString &id, int limit);

    // An event happened: one outbox item per channel that wants it, in one transaction.
    void publish(QLatin1String event, const QJsonObject &payload);

private:
    QJsonObject withCounts(const Channel &channel, const Outbox::Counts &counts) const;
    Error unknown(const QString &id) const;

    Clock m_clock;
    ChannelStore m_channels;
    Outbox m_outbox;
    Deliverer m_deliverer;
};

} // namespace flotilla
