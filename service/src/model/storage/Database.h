#pragma once
// The SQLite database (Qt Sql, WAL) that holds agents and notifications. See
// docs/architecture.md for why these live in SQLite and the system prompt in a JSON file.

#include "base/Error.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariantList>

#include <map>
#include <memory>

namespace flotilla {

class StartupReport;

class Database final {
    Q_DISABLE_COPY_MOVE(Database)
public:
    // Newest schema this build writes. Older files are migrated forward at open; a newer file
    // (written by a later Flotilla) is refused rather than damaged.
    static constexpr int kSchemaVersion = 7;

    ~Database();

    // Opens (creating if needed) the database at `path`. A file that is not a readable SQLite
    // database, or fails its integrity check, is set aside and reported, then a fresh one is made.
    static Result<std::unique_ptr<Database>> open(const QString &path, StartupReport &report);

    // Runs one statement with positional bindings; returns an error with SQLite's text on failure.
    Status exec(const QString &sql, const QVariantList &binds = {});
    // Runs a query and hands each row to `row` (column values in order).
    Status query(const QString &sql, const QVariantList &binds,
                 const std::function<void(const QVariantList &)> &row);

    // Why the last Transaction::commit() failed: 503 storage_full when the disk is full, else
    // 500 internal. Multi-statement writes go through a Transaction (storage/Transaction.h).
    Error commitError(const QString &what) const;

    const QString &path() const { return m_path; }

private:
    friend class Transaction;

    explicit Database(QString path);
    bool beginTransaction();
    bool commitTransaction();
    bool rollbackTransaction();
    // PRAGMA synchronous=FULL or NORMAL, outside a transaction (Transaction's Durability).
    bool setFullSync(bool full);
    QString lastErrorText() const;
    Status openConnection();
    Status migrate();
    Status checkIntegrity();
    void close();

    static constexpr qsizetype kMaxPrepared = 256;

    QString m_path;
    QString m_connectionName;
    std::map<QString, std::unique_ptr<QSqlQuery>> m_prepared; // exec()'s statements, by SQL
};

} // namespace flotilla
