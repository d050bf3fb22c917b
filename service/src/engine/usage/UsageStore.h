#pragma once
// Every turn's usage, one SQLite row each (schema v6, usage_turns), written when the turn ends:
// the durable record that agents' `usage`, day budgets and GET /api/usage are computed from, so
// they survive restarts. Days are the service's local calendar days, fixed when a row is written.

#include "base/Error.h"
#include "protocol/Usage.h"

#include <QHash>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <limits>

namespace flotilla {

class Database;

class UsageStore final {
    Q_DISABLE_COPY_MOVE(UsageStore)
public:
    static constexpr qint64 kBeginning = 0;
    static constexpr qint64 kEnd = std::numeric_limits<qint64>::max();

    explicit UsageStore(Database &db);

    Status record(const QString &agentId, const QString &agentName, qint64 atMs,
                  const UsageTotals &usage);

    // Rows with from <= at < to.
    struct AgentRow {
        QString agentId;
        QString agentName; // as stored with its newest row
        UsageTotals usage;
    };
    Result<QList<AgentRow>> byAgent(qint64 fromMs, qint64 toMs) const;
    // (local date YYYY-MM-DD, totals), oldest first.
    Result<QList<QPair<QString, UsageTotals>>> byDay(qint64 fromMs, qint64 toMs) const;
    // The sum over these agents' rows.
    Result<UsageTotals> sum(const QStringList &agentIds, qint64 fromMs, qint64 toMs) const;
    Result<UsageTotals> total(qint64 fromMs, qint64 toMs) const;

    // The local calendar day of `ms` (YYYY-MM-DD), its first and the next day's first moment.
    static QString dayOf(qint64 ms);
    static qint64 dayStart(qint64 ms);
    static qint64 nextDayStart(qint64 ms);

private:
    Database &m_db;
};

} // namespace flotilla
