#pragma once
// The items of one kind that a user defines and the service keeps (classes, skills, saved
// prompts, hooks, buildings): one JSON row per item in the `catalog` table (schema v7), keyed by
// the item's slug or id, in creation order. Every change is written before it is acknowledged
// and then announced by a signal, which the kind's controller turns into events.
//
// One generic store rather than one table and one class per kind: the kinds differ in what an
// item holds and how it is validated (their own catalog classes in engine/shaping, hooks,
// buildings), not in how it is kept.

#include "base/Error.h"

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QStringList>

#include <utility>

namespace flotilla {

class Database;

class CatalogStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(CatalogStore)
public:
    using Item = std::pair<QString, QJsonObject>; // key, item

    CatalogStore(Database &db, QString kind, QObject *parent = nullptr);
    ~CatalogStore() override;

    const QString &kind() const { return m_kind; }
    // Reads every stored item of this kind (creation order). Unreadable rows are skipped and
    // logged.
    Status load();

    QList<QJsonObject> items() const;
    QStringList keys() const { return m_order; }
    // nullptr when there is no such item. Valid until the next change.
    const QJsonObject *find(const QString &key) const;
    int count() const { return int(m_order.size()); }

    // Inserts (at the end) or replaces (in its place) the item under `key`.
    Status put(const QString &key, const QJsonObject &item);
    // put() of a new item, refused (Invalid, invalid_value: "at most <limit> <plural> may exist")
    // when `limit` items are kept already: a kind's cap on what a user may define.
    Status add(const QString &key, const QJsonObject &item, int limit, const QString &plural);
    Status remove(const QString &key);
    // Several items in one transaction, all or nothing (config import), announced afterwards.
    Status putAll(const QList<Item> &items);
    // Removes several in one transaction (undoing an import that failed later on).
    Status removeAll(const QStringList &keys);

Q_SIGNALS:
    void stored(const QString &key, const QJsonObject &item, bool created);
    void removed(const QString &key, const QJsonObject &item);

private:
    Status writeRow(const QString &key, const QJsonObject &item, qint64 seq);
    void remember(const QString &key, const QJsonObject &item, qint64 seq);
    // After its row is deleted: drops the item and announces it (nothing when there is none).
    void forget(const QString &key);

    Database &m_db;
    QString m_kind;
    QHash<QString, QJsonObject> m_items;
    QHash<QString, qint64> m_seq;
    QStringList m_order;
    qint64 m_nextSeq = 1;
};

} // namespace flotilla
