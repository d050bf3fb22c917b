#pragma once
// How an agent's usage, budget and process state read in the monitor: a compact cell for the
// agents table and the longer line of the agent's header. Widgets-free (unit-tested).

#include <QJsonObject>
#include <QString>

namespace flotilla::monitor {

// "$0.0123 · 12k tok" (input + output tokens); empty before the first recorded turn.
QString usageCell(const QJsonObject &agent);
// "3 turns · 10k in · 2k out · 1k cache read · $0.0123"; empty before the first turn.
QString usageLine(const QJsonObject &agent);
// "budget $1.00 / 50k tokens per day"; empty without a budget. " (reached)" when the agent's
// lastError says its budget (or its team's) is reached.
QString budgetLine(const QJsonObject &agent);
// "process released (idle)" once an agent that has a session no longer holds a CLI process.
QString processLine(const QJsonObject &agent);
// Full token count, compact: 950, 12k, 1.2M.
QString compactTokens(qint64 n);

} // namespace flotilla::monitor
