#pragma once
// Outgoing notification channels: a webhook URL, a format, the events it wants and an
// optional secret for the HMAC signature. Kept in SQLite (`notification_channels`) and in memory
// (a handful of rows, read on every event). The secret leaves this object only towards the
// signature (WebhookFormat); toJson() says whether there is one, never what it is.

#include "base/Clock.h"
#include "base/Error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla {

class Database;

struct Channel {
    QString id;
    QString name;
    QString url; // http(s), with a host; sent to as given
    QString format;
    QStringList events;
    QString secret; // empty: requests are not signed
    qint64 createdAt = 0;
    qint64 lastDeliveredAt = 0; // 0: never
    QString lastError;          // the newest failure since the last success; empty after a success

    // A test delivery goes to every channel; other events to those that subscribed.
    bool wants(QLatin1String event) const;
    // What the API shows (no secret; a password in the URL is left out too). The outbox adds
    // pending and failed.
    QJsonObject toJson() const;
};

class ChannelStore final {
    Q_DISABLE_COPY_MOVE(ChannelStore)
public:
    static constexpr int kMaxChannels = 32;
    static constexpr int kUrlMax = 2048;
    static constexpr int kNameMax = 100;
    static constexpr int kSecretMax = 1024;

    ChannelStore(Database &db, Clock clock);

    // Reads every channel; rows that do not decode are skipped and logged.
    Status load();

    // Validates a POST body {url, format?, events?, secret?, name?}: 400 for a wrong shape, 422
    // for a wrong value, naming the field. Defaults: format json, every event.
    static Result<Channel> parse(const QJsonObject &body);

    // Stores a parsed channel under a new id (409 too_many_channels past kMaxChannels).
    Result<Channel> add(Channel channel);
    // Removes the channel and, in the same transaction, its outbox items.
    Status remove(const QString &id);

    const Channel *find(const QString &id) const;
    const QList<Channel> &all() const { return m_channels; }

    // Per-channel status after an attempt; in memory even if the write fails (logged).
    void recordDelivered(const QString &id, qint64 at);
    void recordError(const QString &id, const QString &error);

private:
    Channel *findMutable(const QString &id);
    void saveStatus(const Channel &channel);

    Database &m_db;
    Clock m_clock;
    QList<Channel> m_channels; // in creation order
};

} // namespace flotilla
