#include "storage/CatalogStore.h"

#include "base/Logging.h"
#include "protocol/WireNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonDocument>

namespace flotilla {

CatalogStore::CatalogStore(Database &db, QString kind, QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_kind(std::move(kind)) {
}

CatalogStore::~CatalogStore() = default;

Status CatalogStore::load() {
    m_items.clear();
    m_seq.clear();
    m_order.clear();
    m_nextSeq = 1;
    return m_db.query(
        QStringLiteral("SELECT key, seq, data FROM catalog WHERE kind = ? ORDER BY seq"), {m_kind},
        [this](const QVariantList &row) {
            const QString key = row.value(0).toString();
            const qint64 seq = row.value(1).toLongLong();
            m_nextSeq = std::max(m_nextSeq, seq + 1);
            QJsonParseError error{};
            const QJsonDocument doc = QJsonDocument::fromJson(row.value(2).toByteArray(), &error);
            if (error.error != QJsonParseError::NoError || !doc.isObject()) {
                qCWarning(lcStorage).noquote()
                    << "skipping unreadable" << m_kind << "row" << key << error.errorString();
                return;
            }
            remember(key, doc.object(), seq);
        });
}

QList<QJsonObject> CatalogStore::items() const {
    QList<QJsonObject> out;
    out.reserve(m_order.size());
    for (const QString &key : m_order)
        out.append(m_items.value(key));
    return out;
}

const QJsonObject *CatalogStore::find(const QString &key) const {
    const auto it = m_items.constFind(key);
    return it == m_items.constEnd() ? nullptr : &*it;
}

Status CatalogStore::writeRow(const QString &key, const QJsonObject &item, qint64 seq) {
    return m_db.exec(
        QStringLiteral("INSERT OR REPLACE INTO catalog (kind, key, seq, data) VALUES (?, ?, ?, ?)"),
        {m_kind, key, seq, QJsonDocument(item).toJson(QJsonDocument::Compact)});
}

void CatalogStore::remember(const QString &key, const QJsonObject &item, qint64 seq) {
    if (!m_items.contains(key))
        m_order.append(key);
    m_items.insert(key, item);
    m_seq.insert(key, seq);
}

void CatalogStore::forget(const QString &key) {
    if (!m_items.contains(key))
        return;
    const QJsonObject item = m_items.take(key);
    m_seq.remove(key);
    m_order.removeOne(key);
    Q_EMIT removed(key, item);
}

Status CatalogStore::put(const QString &key, const QJsonObject &item) {
    const bool created = !m_items.contains(key);
    const qint64 seq = created ? m_nextSeq : m_seq.value(key);
    if (Status e = writeRow(key, item, seq))
        return e;
    if (created)
        ++m_nextSeq;
    remember(key, item, seq);
    Q_EMIT stored(key, item, created);
    return {};
}

Status CatalogStore::add(const QString &key, const QJsonObject &item, int limit,
                         const QString &plural) {
    if (count() >= limit)
        return Error::invalid(
            wire::code::InvalidValue,
            QStringLiteral("at most %1 %2 may exist").arg(QString::number(limit), plural));
    return put(key, item);
}

Status CatalogStore::remove(const QString &key) {
    if (!m_items.contains(key))
        return {};
    if (Status e = m_db.exec(QStringLiteral("DELETE FROM catalog WHERE kind = ? AND key = ?"),
                             {m_kind, key}))
        return e;
    forget(key);
    return {};
}

Status CatalogStore::putAll(const QList<Item> &items) {
    if (items.isEmpty())
        return {};
    QList<qint64> seqs;
    {
        Transaction tx(m_db);
        if (!tx.isOpen())
            return Transaction::beginError();
        qint64 next = m_nextSeq;
        for (const Item &item : items) {
            const qint64 seq = m_items.contains(item.first) ? m_seq.value(item.first) : next++;
            if (Status e = writeRow(item.first, item.second, seq))
                return e;
            seqs.append(seq);
        }
        if (!tx.commit())
            return m_db.commitError(QStringLiteral("cannot store the %1 items").arg(m_kind));
        m_nextSeq = next;
    }
    QList<bool> created;
    for (qsizetype i = 0; i < items.size(); ++i) {
        created.append(!m_items.contains(items[i].first));
        remember(items[i].first, items[i].second, seqs[i]);
    }
    for (qsizetype i = 0; i < items.size(); ++i)
        Q_EMIT stored(items[i].first, items[i].second, created[i]);
    return {};
}

Status CatalogStore::removeAll(const QStringList &keys) {
    if (keys.isEmpty())
        return {};
    {
        Transaction tx(m_db);
        if (!tx.isOpen())
            return Transaction::beginError();
        for (const QString &key : keys) {
            if (Status e =
                    m_db.exec(QStringLiteral("DELETE FROM catalog WHERE kind = ? AND key = ?"),
                              {m_kind, key}))
                return e;
        }
        if (!tx.commit())
            return m_db.commitError(QStringLiteral("cannot remove the %1 items").arg(m_kind));
    }
    for (const QString &key : keys)
        forget(key);
    return {};
}

} // namespace flotilla
