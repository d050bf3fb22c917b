#pragma once
// Usage and budgets. Records each turn's usage (AgentRuntime::turnUsage) in the
// UsageStore, keeps agents' `usage` equal to their rows, decides whether an agent may start a
// turn (AgentRuntime's admit), and answers GET /api/usage.
//
// A budget is on an agent: it caps the agent's team, which is the agent and its subordinates,
// recursively (an agent without subordinates is a team of one). An agent may work while no
// budget over it is reached: its own, its boss's, its boss's boss's... When a turn's usage
// reaches one, the turn has finished; the team's agents show it in `lastError`, a
// budget_exceeded event goes out and a notification is raised, once per crossing. Raising the
// budget (or a new day, for a day budget) lets held queues run: budgetsChanged().

#include "base/Clock.h"
#include "base/Error.h"
#include "protocol/Agent.h"
#include "usage/UsageStore.h"

#include <QJsonObject>
#include <QObject>
#include <QTimer>

namespace flotilla {

class AgentRegistry;
class Database;
class NotificationService;

class UsageService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(UsageService)
public:
    UsageService(Database &db, AgentRegistry &agents, NotificationService &notifications,
                 Clock clock, QObject *parent = nullptr);

    // Agents' usage from the rows (an agent record may lag a crash by one runtime flush).
    Status load();

    void record(const QString &agentId, const UsageTotals &usage);
    // 409 budget_exceeded when a budget over the agent is reached.
    Status admit(const QString &agentId) const;

    // GET /api/usage: `groupBy` agent, boss or day; rows with from <= time < to.
    Result<QJsonObject> report(const QString &groupBy, qint64 fromMs, qint64 toMs) const;

    qint64 now() const { return m_clock.nowMs(); }
    const UsageStore &store() const { return m_store; }

Q_SIGNALS:
    // The budget_exceeded event's payload.
    void budgetExceeded(const QJsonObject &payload);
    // Budgets or teams changed, or a new day began: queues held by a budget may run.
    void budgetsChanged();

private:
    // One budget over an agent: whose it is, the team it caps, what that team used.
    struct Cap {
        Agent owner;
        QStringList team;
        UsageTotals used;
        bool reached = false;
    };
    QList<Cap> capsOver(const Agent &agent) const;
    QStringList teamOf(const Agent &owner) const;
    QString describe(const Cap &cap) const;
    void onCrossed(const Agent &agent, const Cap &cap);
    void onAgentUpdated(const QString &id, const QJsonObject &changes);
    // After budgets, teams or the day changed: budget errors that no longer hold are cleared.
    void reconsider();
    void armDayTimer();

    AgentRegistry &m_agents;
    NotificationService &m_notifications;
    Clock m_clock;
    UsageStore m_store;
    QTimer m_dayTimer; // the next local midnight, while some agent has a day budget
};

} // namespace flotilla
