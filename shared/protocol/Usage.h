#pragma once
// What an agent's turns used, and what it may use: the `usage` and `budget` objects of the agent
// resource.

#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace flotilla {

// Sums over turns. inputTokens: input not read from a cache (Claude: input_tokens plus cache
// writes; Codex: input minus cached input); cacheReadTokens: input read from a cache; costUsd:
// what the CLI reported (Claude's total_cost_usd; Codex reports none: 0).
struct UsageTotals {
    qint64 turns = 0;
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0;
    double costUsd = 0;

    // What a `tokens` budget counts: input and output, cache reads excluded.
    qint64 budgetTokens() const { return inputTokens + outputTokens; }
    UsageTotals &operator+=(const UsageTotals &o);
    QJsonObject toJson() const;
    static UsageTotals fromJson(const QJsonObject &json);
    friend bool operator==(const UsageTotals &a, const UsageTotals &b) {
        return a.toJson() == b.toJson();
    }
};

// A spending cap; an agent's own, or (on a boss) its team's. Unset: no cap.
struct Budget {
    double costUsd = 0; // 0: no cost cap
    qint64 tokens = 0;  // 0: no token cap
    bool perDay = false;

    bool isSet() const { return costUsd > 0 || tokens > 0; }
    bool reachedBy(const UsageTotals &used) const {
        return (costUsd > 0 && used.costUsd >= costUsd) ||
               (tokens > 0 && used.budgetTokens() >= tokens);
    }
    // {costUsd?, tokens?, period}, or null when unset.
    QJsonValue toJson() const;
    static Budget fromJson(const QJsonValue &json);
    friend bool operator==(const Budget &a, const Budget &b) {
        return a.costUsd == b.costUsd && a.tokens == b.tokens && a.perDay == b.perDay;
    }
};

} // namespace flotilla
