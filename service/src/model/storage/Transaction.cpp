#include "storage/Transaction.h"

#include "base/Logging.h"
#include "protocol/WireNames.h"
#include "storage/Database.h"

namespace flotilla {

Transaction::Transaction(Database &db, Durability durability)
    : m_db(db)
    , m_relaxed(durability == Durability::ProcessCrash && db.setFullSync(false))
    , m_open(db.beginTransaction()) {
    if (!m_open) {
        qCWarning(lcStorage).noquote() << "cannot begin transaction:" << m_db.lastErrorText();
        restoreDurability();
    }
}

void Transaction::restoreDurability() {
    // Back to full durability for every other writer, whatever happened to this transaction.
    if (m_relaxed && !m_db.setFullSync(true))
        qCWarning(lcStorage).noquote()
            << "cannot restore synchronous=FULL:" << m_db.lastErrorText();
    m_relaxed = false;
}

Transaction::~Transaction() {
    if (!m_open) {
        restoreDurability();
        return;
    }
    // After a failed COMMIT SQLite may have ended the transaction itself (a full disk does):
    // a ROLLBACK that finds none is expected then, and not worth a warning.
    if (!m_db.rollbackTransaction() && !m_commitFailed)
        qCWarning(lcStorage).noquote() << "cannot roll back transaction:" << m_db.lastErrorText();
    restoreDurability();
}

Error Transaction::beginError() {
    return Error::internal(wire::code::Internal, QStringLiteral("cannot begin transaction"));
}

bool Transaction::commit() {
    if (!m_open)
        return false;
    if (m_db.commitTransaction()) {
        m_open = false;
        restoreDurability();
        return true;
    }
    m_commitFailed = true;
    qCWarning(lcStorage).noquote() << "cannot commit transaction:" << m_db.lastErrorText();
    return false;
}

} // namespace flotilla
