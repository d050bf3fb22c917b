#include "notify/Outbox.h"

#include "protocol/NotifyNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonDocument>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace nk = wire::notify::key;
namespace ns = wire::notify::state;

namespace {

constexpr QLatin1String kColumns{
    "id, channel_id, event, created_at, payload, state, attempts, next_attempt_at, last_error"};

OutboxItem itemFromRow(const QVariantList &row) {
    OutboxItem item;
    item.id = row.value(0).toString();
    item.channelId = row.value(1).toString();
    item.event = row.value(2).toString();
    item.createdAt = row.value(3).toLongLong();
    item.payload = QJsonDocument::fromJson(row.value(4).toByteArray()).object();
    item.state = row.value(5).toString();
    item.attempts = row.value(6).toInt();
    item.nextAttemptAt = row.value(7).toLongLong();
    item.lastError = row.value(8).toString();
    return item;
}

} // namespace

QJsonObject OutboxItem::toJson() const {
    const bool pending = state == ns::Pending;
    return {{k::Id, id},
            {nk::Event, event},
            {nk::State, state},
            {k::CreatedAt, createdAt},
            {nk::Attempts, attempts},
            {nk::NextAttemptAt, pending ? QJsonValue(nextAttemptAt) : QJsonValue()},
            {k::LastError, lastError.isEmpty() ? QJsonValue() : QJsonValue(lastError)}};
}

Outbox::Outbox(Database &db, int maxPendingPerChannel, int keptFailedPerChannel)
    : m_db(db)
    , m_maxPending(maxPendingPerChannel)
    , m_keptFailed(keptFailedPerChannel) {
}

Result<QStringList> Outbox::enqueue(const QStringList &channelIds, const QString &event,
                                    const QJsonObject &payload, qint64 now) {
    QStringList ids;
    if (channelIds.isEmpty())
        return ids;
    const QByteArray payloadText = QJsonDocument(payload).toJson(QJsonDocument::Compact);
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    Status e;
    for (const QString &channelId : channelIds) {
        const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        e = m_db.exec(QStringLiteral("INSERT INTO notification_outbox (id, channel_id, event, "
                                     "created_at, payload, state, attempts, next_attempt_at) "
                                     "VALUES (?, ?, ?, ?, ?, ?, 0, ?)"),
                      {id, channelId, event, now, payloadText, QString(ns::Pending), now});
        if (!e)
            e = capChannel(channelId);
        if (e)
            break;
        ids.append(id);
    }
    if (!e && !tx.commit())
        e = m_db.commitError(QStringLiteral("cannot commit outgoing notifications"));
    if (e)
        return *e;
    return ids;
}

// Past the limit, the oldest pending items are failed: visible, no longer retried.
Status Outbox::capChannel(const QString &channelId) {
    Status e = m_db.exec(
        QStringLiteral("UPDATE notification_outbox SET state = ?, last_error = ? "
                       "WHERE channel_id = ? AND state = ? AND seq NOT IN (SELECT seq FROM "
                       "notification_outbox WHERE channel_id = ? AND state = ? "
                       "ORDER BY seq DESC LIMIT ?)"),
        {QString(ns::Failed),
         QStringLiteral("outbox full: more than %1 pending deliveries for this channel")
             .arg(m_maxPending),
         channelId, QString(ns::Pending), channelId, QString(ns::Pending), m_maxPending});
    return e ? e : pruneFailed(channelId);
}

Status Outbox::pruneFailed(const QString &channelId) {
    return m_db.exec(
        QStringLiteral("DELETE FROM notification_outbox WHERE channel_id = ? AND "
                       "state = ? AND seq NOT IN (SELECT seq FROM notification_outbox "
                       "WHERE channel_id = ? AND state = ? ORDER BY seq DESC LIMIT ?)"),
        {channelId, QString(ns::Failed), channelId, QString(ns::Failed), m_keptFailed});
}

Status Outbox::makeAllDue() {
    return m_db.exec(
        QStringLiteral("UPDATE notification_outbox SET next_attempt_at = 0 WHERE state = ?"),
        {QString(ns::Pending)});
}

std::optional<OutboxItem> Outbox::nextDue(const QString &channelId, qint64 now) {
    std::optional<OutboxItem> out;
    m_db.query(QStringLiteral("SELECT %1 FROM notification_outbox WHERE channel_id = ? AND "
                              "state = ? AND next_attempt_at <= ? ORDER BY seq LIMIT 1")
                   .arg(kColumns),
               {channelId, QString(ns::Pending), now},
               [&out](const QVariantList &row) { out = itemFromRow(row); });
    return out;
}

std::optional<qint64> Outbox::earliestDue(const QString &channelId) {
    std::optional<qint64> out;
    m_db.query(QStringLiteral("SELECT MIN(next_attempt_at) FROM notification_outbox "
                              "WHERE channel_id = ? AND state = ?"),
               {channelId, QString(ns::Pending)}, [&out](const QVariantList &row) {
                   if (!row.value(0).isNull())
                       out = row.value(0).toLongLong();
               });
    return out;
}

Status Outbox::recordAttempt(const QString &id) {
    return m_db.exec(
        QStringLiteral("UPDATE notification_outbox SET attempts = attempts + 1 WHERE id = ?"),
        {id});
}

Status Outbox::delivered(const QString &id, const QString &channelId, qint64 now) {
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    Status e = m_db.exec(QStringLiteral("DELETE FROM notification_outbox WHERE id = ?"), {id});
    if (!e)
        e = m_db.exec(QStringLiteral("UPDATE notification_outbox SET next_attempt_at = ? "
                                     "WHERE channel_id = ? AND state = ? AND next_attempt_at > ?"),
                      {now, channelId, QString(ns::Pending), now});
    if (!e && !tx.commit())
        e = m_db.commitError(QStringLiteral("cannot commit a delivery"));
    return e;
}

Status Outbox::recordFailure(const QString &id, const QString &error, bool final,
                             qint64 nextAttemptAt) {
    QString channelId;
    m_db.query(QStringLiteral("SELECT channel_id FROM notification_outbox WHERE id = ?"), {id},
               [&channelId](const QVariantList &row) { channelId = row.value(0).toString(); });
    Status e = m_db.exec(QStringLiteral("UPDATE notification_outbox SET state = ?, last_error = ?, "
                                        "next_attempt_at = ? WHERE id = ? AND state = ?"),
                         {QString(final ? ns::Failed : ns::Pending), error, nextAttemptAt, id,
                          QString(ns::Pending)});
    if (!e && final && !channelId.isEmpty())
        e = pruneFailed(channelId);
    return e;
}

QHash<QString, Outbox::Counts> Outbox::counts() {
    QHash<QString, Counts> out;
    m_db.query(QStringLiteral("SELECT channel_id, state, COUNT(*) FROM notification_outbox "
                              "GROUP BY channel_id, state"),
               {}, [&out](const QVariantList &row) {
                   Counts &c = out[row.value(0).toString()];
                   if (row.value(1).toString() == ns::Pending)
                       c.pending = row.value(2).toInt();
                   else
                       c.failed = row.value(2).toInt();
               });
    return out;
}

Result<QJsonArray> Outbox::list(const QString &channelId, int limit) {
    QJsonArray out;
    Status e = m_db.query(QStringLiteral("SELECT %1 FROM notification_outbox WHERE channel_id = ? "
                                         "ORDER BY seq DESC LIMIT ?")
                              .arg(kColumns),
                          {channelId, limit}, [&out](const QVariantList &row) {
                              out.append(itemFromRow(row).toJson());
                          });
    if (e)
        return *e;
    return out;
}

} // namespace flotilla
