#pragma once
// The persisted outbox of outgoing notifications (`notification_outbox`): one item per (channel,
// event), written in one transaction for every channel an event goes to, before any attempt. An
// item stays until a 2xx answer deletes it, or it is marked failed (after the last attempt, or
// pushed out of a full outbox). Its id is the delivery id a receiver dedups by.

#include "base/Error.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

namespace flotilla {

class Database;

struct OutboxItem {
    QString id; // the delivery id: stable across attempts and restarts
    QString channelId;
    QString event;
    qint64 createdAt = 0; // when the event happened, epoch ms
    QJsonObject payload;
    QString state;
    int attempts = 0; // attempts started
    qint64 nextAttemptAt = 0;
    QString lastError;

    QJsonObject toJson() const; // for GET .../deliveries
};

class Outbox final {
    Q_DISABLE_COPY_MOVE(Outbox)
public:
    Outbox(Database &db, int maxPendingPerChannel, int keptFailedPerChannel);

    // One pending item per channel, in one transaction; returns the new ids (same order).
    Result<QStringList> enqueue(const QStringList &channelIds, const QString &event,
                                const QJsonObject &payload, qint64 now);
    // At start: every pending item is due at once (attempt counts are kept).
    Status makeAllDue();

    // The oldest pending item of the channel that is due at `now`.
    std::optional<OutboxItem> nextDue(const QString &channelId, qint64 now);
    // When the channel's earliest pending item is due; nullopt when it has none.
    std::optional<qint64> earliestDue(const QString &channelId);

    // Counts the attempt about to start (so that one a crash cut short is counted too).
    Status recordAttempt(const QString &id);
    // A 2xx: the item leaves the outbox, and the channel's other pending items are due at once
    // (the receiver is back). One transaction.
    Status delivered(const QString &id, const QString &channelId, qint64 now);
    // A failed attempt: retried at `nextAttemptAt`, or failed for good when `final`.
    Status recordFailure(const QString &id, const QString &error, bool final, qint64 nextAttemptAt);

    struct Counts {
        int pending = 0;
        int failed = 0;
    };
    QHash<QString, Counts> counts();
    // Pending and failed items of a channel, newest first.
    Result<QJsonArray> list(const QString &channelId, int limit);

private:
    Status capChannel(const QString &channelId);
    Status pruneFailed(const QString &channelId);

    Database &m_db;
    int m_maxPending;
    int m_keptFailed;
};

} // namespace flotilla
