#include "storage/Database.h"

#include "base/Logging.h"
#include "protocol/WireNames.h"
#include "storage/FileSafety.h"
#include "storage/StartupReport.h"
#include "storage/Transaction.h"

#include <QAtomicInt>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>

namespace flotilla {

namespace {
QAtomicInt g_connectionCounter;

// SQLITE_FULL (13) is a full file system (or the database's size limit): a 503 the client can
// retry, not a bug.
Error sqlError(const QString &what, const QSqlError &e) {
    const QString detail = what + QStringLiteral(": ") + e.text();
    // Qt's SQLite driver drops the native code of a failed COMMIT; SQLite's text for
    // SQLITE_FULL is stable ("database or disk is full").
    if (e.nativeErrorCode() == QLatin1String("13") ||
        e.databaseText().contains(QLatin1String("database or disk is full")))
        return storageFullError(detail);
    return Error::internal(wire::code::Internal, detail);
}

// Each migration moves the schema from version (index) to (index + 1).
const char *const kMigrations[] = {
    // 0 -> 1
    "CREATE TABLE agents ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  data TEXT NOT NULL,"
    "  updated_at INTEGER NOT NULL);"
    "CREATE TABLE notifications ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  id TEXT UNIQUE NOT NULL,"
    "  timestamp INTEGER NOT NULL,"
    "  data TEXT NOT NULL);",
    // 1 -> 2: tool uses recorded from the live stream (GET /api/agents/tool-history)
    "CREATE TABLE tool_history ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  agent_id TEXT NOT NULL,"
    "  timestamp INTEGER NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE INDEX tool_history_agent ON tool_history (agent_id, seq);",
    // 2 -> 3: orchestration: areas, delegation decisions, work plans
    "CREATE TABLE areas ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE TABLE delegations ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  id TEXT UNIQUE NOT NULL,"
    "  boss_id TEXT NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE INDEX delegations_boss ON delegations (boss_id, seq);"
    "CREATE TABLE work_plans ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  boss_id TEXT NOT NULL,"
    "  updated_at INTEGER NOT NULL,"
    "  data TEXT NOT NULL);",
    // 3 -> 4: standing permission rules and the decision log
    "CREATE TABLE permission_rules ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE TABLE permission_decisions ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  id TEXT UNIQUE NOT NULL,"
    "  agent_id TEXT NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE INDEX permission_decisions_agent ON permission_decisions (agent_id, seq);",
    // 4 -> 5: outgoing notification channels and their outbox
    "CREATE TABLE notification_channels ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  data TEXT NOT NULL,"
    "  secret TEXT,"
    "  last_delivered_at INTEGER,"
    "  last_error TEXT);"
    "CREATE TABLE notification_outbox ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  id TEXT UNIQUE NOT NULL,"
    "  channel_id TEXT NOT NULL,"
    "  event TEXT NOT NULL,"
    "  created_at INTEGER NOT NULL,"
    "  payload TEXT NOT NULL,"
    "  state TEXT NOT NULL,"
    "  attempts INTEGER NOT NULL,"
    "  next_attempt_at INTEGER NOT NULL,"
    "  last_error TEXT);"
    "CREATE INDEX notification_outbox_channel ON notification_outbox (channel_id, state, seq);",
    // 5 -> 6: every turn's usage: agents' usage, day budgets, GET /api/usage
    "CREATE TABLE usage_turns ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  agent_id TEXT NOT NULL,"
    "  agent_name TEXT NOT NULL,"
    "  at INTEGER NOT NULL,"
    "  day TEXT NOT NULL,"
    "  input_tokens INTEGER NOT NULL,"
    "  output_tokens INTEGER NOT NULL,"
    "  cache_read_tokens INTEGER NOT NULL,"
    "  cost_usd REAL NOT NULL);"
    "CREATE INDEX usage_turns_agent ON usage_turns (agent_id, at);"
    "CREATE INDEX usage_turns_at ON usage_turns (at);",
    // 6 -> 7: what shapes agents (classes, skills, saved prompts, hooks, buildings: one JSON row
    // per item, CatalogStore), each hook's runs, and opaque uploaded assets (3D models)
    "CREATE TABLE catalog ("
    "  kind TEXT NOT NULL,"
    "  key TEXT NOT NULL,"
    "  seq INTEGER NOT NULL,"
    "  data TEXT NOT NULL,"
    "  PRIMARY KEY (kind, key));"
    "CREATE TABLE hook_runs ("
    "  seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  hook_id TEXT NOT NULL,"
    "  data TEXT NOT NULL);"
    "CREATE INDEX hook_runs_hook ON hook_runs (hook_id, seq);"
    "CREATE TABLE assets ("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  kind TEXT NOT NULL,"
    "  data TEXT NOT NULL,"
    "  bytes BLOB NOT NULL);",
};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == Database::kSchemaVersion,
              "one migration per schema version");
} // namespace

Database::Database(QString path)
    : m_path(std::move(path))
    , m_connectionName(
          QStringLiteral("flotilla-%1").arg(g_connectionCounter.fetchAndAddRelaxed(1))) {
}

Database::~Database() {
    close();
}

void Database::close() {
    m_prepared.clear(); // statements before their connection
    if (QSqlDatabase::contains(m_connectionName)) {
        {
            QSqlDatabase db = QSqlDatabase::database(m_connectionName, false);
            db.close();
        }
        QSqlDatabase::removeDatabase(m_connectionName);
    }
}

Result<std::unique_ptr<Database>> Database::open(const QString &path, StartupReport &report) {
    std::unique_ptr<Database> db(new Database(path));
    Status st = db->openConnection();
    if (!st)
        st = db->checkIntegrity();
    if (st) {
        // Damaged: keep the evidence, start clean, and say so loudly.
        db->close();
        const QString aside = setAside(path);
        if (aside.isEmpty()) {
            return Error::internal(wire::code::Internal,
                                   QStringLiteral("database %1 is unreadable (%2) and could not be "
                                                  "moved aside")
                                       .arg(path, st->message));
        }
        for (const char *suffix : {"-wal", "-shm"}) {
            const QString side = path + QLatin1String(suffix);
            if (QFile::exists(side))
                QFile::rename(side, aside + QLatin1String(suffix));
        }
        const QString warning =
            QStringLiteral("database %1 was unreadable (%2); it was moved to %3 "
                           "and an empty one was created")
                .arg(QFileInfo(path).fileName(), st->message, QFileInfo(aside).fileName());
        qCCritical(lcStorage).noquote() << warning;
        report.addWarning(warning);
        st = db->openConnection();
        if (st)
            return *st;
    }
    if (Status m = db->migrate())
        return *m;
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return Result<std::unique_ptr<Database>>(std::move(db));
}

Status Database::openConnection() {
    QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_connectionName);
    db.setDatabaseName(m_path);
    if (!db.open())
        return sqlError(QStringLiteral("cannot open database"), db.lastError());
    // WAL: readers never block the writer and a commit is one append. synchronous=FULL makes an
    // acknowledged write survive power loss too, not only a crash of this process.
    for (const char *pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                               "PRAGMA busy_timeout=5000", "PRAGMA foreign_keys=ON"}) {
        QSqlQuery q(db);
        if (!q.exec(QLatin1String(pragma)))
            return sqlError(QStringLiteral("cannot configure database"), q.lastError());
    }
    return std::nullopt;
}

Status Database::checkIntegrity() {
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    if (!q.exec(QStringLiteral("PRAGMA quick_check")))
        return sqlError(QStringLiteral("integrity check failed"), q.lastError());
    if (!q.next())
        return Error::internal(wire::code::Internal,
                               QStringLiteral("integrity check gave no answer"));
    const QString verdict = q.value(0).toString();
    if (verdict != QLatin1String("ok"))
        return Error::internal(wire::code::Internal, QStringLiteral("integrity check: ") + verdict);
    return std::nullopt;
}

Status Database::migrate() {
    int version = 0;
    Status st = query(QStringLiteral("PRAGMA user_version"), {},
                      [&](const QVariantList &row) { version = row.value(0).toInt(); });
    if (st)
        return st;
    if (version > kSchemaVersion) {
        return Error::internal(wire::code::Internal,
                               QStringLiteral("database %1 has schema version %2, newer than this "
                                              "flotillad understands (%3); refusing to touch it")
                                   .arg(m_path)
                                   .arg(version)
                                   .arg(kSchemaVersion));
    }
    for (int v = version; v < kSchemaVersion; ++v) {
        Transaction tx(*this);
        if (!tx.isOpen())
            return Error::internal(wire::code::Internal, QStringLiteral("cannot begin migration"));
        const QStringList statements =
            QString::fromLatin1(kMigrations[v]).split(QLatin1Char(';'), Qt::SkipEmptyParts);
        for (const QString &sql : statements) {
            if (sql.trimmed().isEmpty())
                continue;
            if (Status e = exec(sql))
                return e;
        }
        if (Status e = exec(QStringLiteral("PRAGMA user_version=%1").arg(v + 1)))
            return e;
        if (!tx.commit())
            return Error::internal(wire::code::Internal, QStringLiteral("cannot commit migration"));
        qCInfo(lcStorage) << "database migrated to schema version" << v + 1;
    }
    return std::nullopt;
}

Status Database::exec(const QString &sql, const QVariantList &binds) {
    // Compiling a statement costs more than running it (an agent row's upsert: ~90k
    // instructions to prepare, ~20k to run), and writers run the same few statements over and
    // over: each is prepared once and kept. SQLite recompiles a kept one itself after a schema
    // change. The SQL texts are constants, so the cache stays small; a bound keeps it so.
    auto it = m_prepared.find(sql);
    if (it == m_prepared.end()) {
        auto q = std::make_unique<QSqlQuery>(QSqlDatabase::database(m_connectionName, false));
        if (!q->prepare(sql))
            return sqlError(QStringLiteral("cannot prepare"), q->lastError());
        if (qsizetype(m_prepared.size()) >= kMaxPrepared)
            m_prepared.clear();
        it = m_prepared.emplace(sql, std::move(q)).first;
    }
    QSqlQuery &q = *it->second;
    for (qsizetype i = 0; i < binds.size(); ++i)
        q.bindValue(int(i), binds.at(i));
    const bool ok = q.exec();
    Status result;
    if (!ok)
        result = sqlError(QStringLiteral("statement failed"), q.lastError());
    q.finish(); // reset: a kept statement holds no lock between uses
    return result;
}

Status Database::query(const QString &sql, const QVariantList &binds,
                       const std::function<void(const QVariantList &)> &row) {
    QSqlQuery q(QSqlDatabase::database(m_connectionName, false));
    q.setForwardOnly(true);
    if (!q.prepare(sql))
        return sqlError(QStringLiteral("cannot prepare"), q.lastError());
    for (const QVariant &b : binds)
        q.addBindValue(b);
    if (!q.exec())
        return sqlError(QStringLiteral("query failed"), q.lastError());
    const int columns = q.record().count();
    QVariantList values;
    while (q.next()) {
        values.clear();
        for (int i = 0; i < columns; ++i)
            values.append(q.value(i));
        row(values);
    }
    return std::nullopt;
}

bool Database::beginTransaction() {
    return QSqlDatabase::database(m_connectionName, false).transaction();
}
bool Database::commitTransaction() {
    return QSqlDatabase::database(m_connectionName, false).commit();
}
Error Database::commitError(const QString &what) const {
    return sqlError(what, QSqlDatabase::database(m_connectionName, false).lastError());
}
bool Database::setFullSync(bool full) {
    return !exec(full ? QStringLiteral("PRAGMA synchronous=FULL")
                      : QStringLiteral("PRAGMA synchronous=NORMAL"));
}
bool Database::rollbackTransaction() {
    return QSqlDatabase::database(m_connectionName, false).rollback();
}
QString Database::lastErrorText() const {
    return QSqlDatabase::database(m_connectionName, false).lastError().text();
}

} // namespace flotilla
