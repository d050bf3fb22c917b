#pragma once
// Delegation decisions, persisted per boss in the `delegations` table (schema v3): one JSON row
// per decision, written before it is announced and rewritten when its task ends, so the history a
// client asks for (newest first) shows how each delegation turned out.

#include "base/Clock.h"
#include "base/Error.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace flotilla {
class Database;
}

namespace flotilla::boss {

struct Delegation {
    QString id;
    QString bossId;
    QString command; // what the boss was answering (the user's command, a report...)
    QString selectedAgentId;
    QString selectedAgentName;
    QString task; // the text sent to the subordinate
    QString reasoning;
    QString confidence; // high | medium | low
    QString status;     // sent | completed | failed
    qint64 timestamp = 0;
    QString planId; // set when the delegation carries out a work plan task
    QString planTaskId;
    QString summary; // how it ended (report summary, final answer or why it failed)
    qint64 completedAt = 0;

    // The delegation_decision payload and the stored row.
    QJsonObject toJson() const;
    static bool fromJson(const QJsonObject &json, Delegation *out);
};

class DelegationStore final {
    Q_DISABLE_COPY_MOVE(DelegationStore)
public:
    // Older decisions beyond this many per boss are dropped when a new one is recorded.
    static constexpr int kKeepPerBoss = 1000;
    static constexpr int kDefaultHistory = 100;
    static constexpr int kMaxHistory = 1000;

    DelegationStore(Database &db, Clock clock);

    Status add(const Delegation &d);
    Status update(const Delegation &d);
    // Newest first.
    Result<QList<Delegation>> history(const QString &bossId, int limit) const;
    // Decisions still `sent` when the service stopped: their turns died with it. Marks them
    // failed (summary `why`) and returns them, so work plans can follow.
    Result<QList<Delegation>> failUnfinished(const QString &why);
    Status removeBoss(const QString &bossId);

private:
    Database &m_db;
    Clock m_clock;
};

} // namespace flotilla::boss
