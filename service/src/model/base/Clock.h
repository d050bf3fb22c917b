#pragma once
// The service's notion of "now": epoch milliseconds for every time it records (agents',
// notifications' and deliveries' timestamps, usage rows, plans, rules, secrets) or compares with
// a recorded one (day budgets, delivery schedules, the crash-restart window). The composition
// root makes one and hands a copy to each class that reads the time, so a test can set it (to
// cross midnight, for example).
//
// Durations measured inside the process (timeouts, rate limits, backlogs) use monotonic timers
// (QElapsedTimer, QTimer) instead: they must not jump when the wall clock is set.

#include <QtGlobal>

#include <functional>

namespace flotilla {

class Clock final {
public:
    using Source = std::function<qint64()>; // epoch milliseconds

    // Reads `source`; an empty one reads the system clock.
    explicit Clock(Source source);
    // The system clock.
    static Clock system() { return Clock(Source()); }

    qint64 nowMs() const { return m_source(); }

private:
    Source m_source;
};

} // namespace flotilla
