#pragma once
// One SQLite transaction on a Database, scoped: it begins on construction and is rolled back when
// it goes out of scope unless commit() succeeded, so every early return of a multi-statement
// write undoes what it started.
//
//     Transaction tx(m_db);
//     if (!tx.isOpen())
//         return Transaction::beginError();
//     if (Status e = m_db.exec(...))
//         return e;                // rolled back here
//     if (!tx.commit())
//         return m_db.commitError(QStringLiteral("cannot commit ...")); // and here
//
// Failures to begin, commit or roll back are logged under the storage category.
//
// Durability: a commit is acknowledged once it survives power loss (synchronous=FULL: the WAL is
// fsynced), unless the writer asks for Durability::ProcessCrash: then the commit is written to the
// WAL without its own fsync (synchronous=NORMAL for this transaction only). It still survives a
// crash or kill of flotillad at once; it survives power loss from the next full commit on, whose
// fsync covers the earlier frames too. Only data that is rewritten often and worth little once
// stale may ask for it (an agent's self-reported status: AgentRegistry::patch).

#include "base/Error.h"

#include <QtGlobal>

namespace flotilla {

class Database;

enum class Durability { PowerLoss, ProcessCrash };

class Transaction final {
    Q_DISABLE_COPY_MOVE(Transaction)
public:
    explicit Transaction(Database &db, Durability durability = Durability::PowerLoss);
    ~Transaction();

    // Whether the transaction began; one that did not has nothing to commit or roll back.
    bool isOpen() const { return m_open; }
    // The 500 internal that a write refuses with when its transaction could not begin.
    static Error beginError();

    // Commits; returns whether it did. After a failed commit, Database::commitError() says why:
    // read it while this object is in scope, before its rollback can replace the error.
    bool commit();

private:
    void restoreDurability();

    Database &m_db;
    bool m_relaxed = false; // synchronous=NORMAL was set for this transaction
    bool m_open = false;
    bool m_commitFailed = false;
};

} // namespace flotilla
