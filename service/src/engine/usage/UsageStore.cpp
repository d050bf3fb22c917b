#include "usage/UsageStore.h"

#include "storage/Database.h"

#include <QDateTime>

namespace flotilla {

namespace {
// The columns every aggregate reads, in UsageTotals' order.
const char kSums[] = "COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), "
                     "COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cost_usd), 0.0)";

UsageTotals totalsAt(const QVariantList &row, int first) {
    UsageTotals u;
    u.turns = row.value(first).toLongLong();
    u.inputTokens = row.value(first + 1).toLongLong();
    u.outputTokens = row.value(first + 2).toLongLong();
    u.cacheReadTokens = row.value(first + 3).toLongLong();
    u.costUsd = row.value(first + 4).toDouble();
    return u;
}
} // namespace

UsageStore::UsageStore(Database &db)
    : m_db(db) {
}

Status UsageStore::record(const QString &agentId, const QString &agentName, qint64 atMs,
                          const UsageTotals &usage) {
    return m_db.exec(QStringLiteral("INSERT INTO usage_turns (agent_id, agent_name, at, day, "
                                    "input_tokens, output_tokens, cache_read_tokens, cost_usd) "
                                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
                     {agentId, agentName, atMs, dayOf(atMs), usage.inputTokens, usage.outputTokens,
                      usage.cacheReadTokens, usage.costUsd});
}

Result<QList<UsageStore::AgentRow>> UsageStore::byAgent(qint64 fromMs, qint64 toMs) const {
    QList<AgentRow> out;
    const QString sql =
        QStringLiteral("SELECT agent_id, (SELECT agent_name FROM usage_turns n WHERE n.agent_id = "
                       "u.agent_id ORDER BY seq DESC LIMIT 1), %1 FROM usage_turns u "
                       "WHERE at >= ? AND at < ? GROUP BY agent_id ORDER BY MIN(seq)")
            .arg(QLatin1String(kSums));
    if (Status e = m_db.query(sql, {fromMs, toMs}, [&](const QVariantList &row) {
            out.append({row.value(0).toString(), row.value(1).toString(), totalsAt(row, 2)});
        }))
        return *e;
    return out;
}

Result<QList<QPair<QString, UsageTotals>>> UsageStore::byDay(qint64 fromMs, qint64 toMs) const {
    QList<QPair<QString, UsageTotals>> out;
    const QString sql = QStringLiteral("SELECT day, %1 FROM usage_turns WHERE at >= ? AND at < ? "
                                       "GROUP BY day ORDER BY day")
                            .arg(QLatin1String(kSums));
    if (Status e = m_db.query(sql, {fromMs, toMs}, [&](const QVariantList &row) {
            out.append({row.value(0).toString(), totalsAt(row, 1)});
        }))
        return *e;
    return out;
}

Result<UsageTotals> UsageStore::sum(const QStringList &agentIds, qint64 fromMs, qint64 toMs) const {
    if (agentIds.isEmpty())
        return UsageTotals();
    QStringList marks;
    QVariantList binds{fromMs, toMs};
    for (const QString &id : agentIds) {
        marks.append(QStringLiteral("?"));
        binds.append(id);
    }
    UsageTotals u;
    const QString sql = QStringLiteral("SELECT %1 FROM usage_turns WHERE at >= ? AND at < ? AND "
                                       "agent_id IN (%2)")
                            .arg(QLatin1String(kSums), marks.join(QLatin1Char(',')));
    if (Status e = m_db.query(sql, binds, [&](const QVariantList &row) { u = totalsAt(row, 0); }))
        return *e;
    return u;
}

Result<UsageTotals> UsageStore::total(qint64 fromMs, qint64 toMs) const {
    UsageTotals u;
    const QString sql = QStringLiteral("SELECT %1 FROM usage_turns WHERE at >= ? AND at < ?")
                            .arg(QLatin1String(kSums));
    if (Status e =
            m_db.query(sql, {fromMs, toMs}, [&](const QVariantList &row) { u = totalsAt(row, 0); }))
        return *e;
    return u;
}

QString UsageStore::dayOf(qint64 ms) {
    return QDateTime::fromMSecsSinceEpoch(ms).date().toString(Qt::ISODate);
}

qint64 UsageStore::dayStart(qint64 ms) {
    return QDateTime(QDateTime::fromMSecsSinceEpoch(ms).date(), QTime(0, 0)).toMSecsSinceEpoch();
}

qint64 UsageStore::nextDayStart(qint64 ms) {
    return QDateTime(QDateTime::fromMSecsSinceEpoch(ms).date().addDays(1), QTime(0, 0))
        .toMSecsSinceEpoch();
}

} // namespace flotilla
