#pragma once
// A per-agent budget for decision-log entries that an agent's permission hook caused. The hook is
// an HTTP call with the agent's own token: whoever holds the token (the agent, or anyone it
// leaked to) can make it as often as it likes, and each call that a rule answers, or that times
// out, is a log entry. The log keeps only its newest RuleStore::kMaxDecisions entries, so without
// a budget such calls could push the real history out. Entries of user decisions are never
// limited.
//
// A token bucket per agent: kBurst entries at once, then one every kRefillMs.

#include <QElapsedTimer>
#include <QHash>
#include <QString>

namespace flotilla {

class HookLogLimiter final {
public:
    static constexpr int kBurst = 60;
    static constexpr qint64 kRefillMs = 1000;

    HookLogLimiter() { m_clock.start(); }

    // Whether one more entry of `agentId` may be logged now. When it may, `suppressed` gets how
    // many were refused since its last logged one.
    bool admit(const QString &agentId, int *suppressed) {
        Bucket &b = m_buckets[agentId];
        const qint64 now = m_clock.elapsed();
        if (b.seen) {
            const qint64 refill = (now - b.lastMs) / kRefillMs;
            b.tokens = int(qMin<qint64>(kBurst, b.tokens + refill));
            b.lastMs += refill * kRefillMs;
        } else {
            b = Bucket{kBurst, now, 0, true};
        }
        if (b.tokens == 0) {
            ++b.refused;
            return false;
        }
        --b.tokens;
        *suppressed = b.refused;
        b.refused = 0;
        return true;
    }
    void forget(const QString &agentId) { m_buckets.remove(agentId); }

private:
    struct Bucket {
        int tokens = kBurst;
        qint64 lastMs = 0;
        int refused = 0;
        bool seen = false;
    };
    QElapsedTimer m_clock;
    QHash<QString, Bucket> m_buckets;
};

} // namespace flotilla
