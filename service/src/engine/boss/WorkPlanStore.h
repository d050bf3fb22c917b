#pragma once
// Work plans: a boss proposes one (a ```work-plan block), a client approves or cancels it, the
// approved plan's tasks are delegated and the plan follows them to its end.
//
//   plan:  proposed -> executing -> completed (every task completed) | failed (all ended, some
//          failed); proposed | executing -> cancelled
//   task:  pending -> in_progress -> completed | failed; pending | in_progress -> cancelled
//
// This class owns the plans' state and its rules; the delegating is the boss service's. Every
// change is written to the `work_plans` table (schema v3) before it is announced through
// `publish` (work_plan_created / work_plan_updated / work_plan_deleted). All plans stay in memory:
// they are few, and the on-connect sync must not touch the disk.

#include "base/Clock.h"
#include "base/Error.h"
#include "boss/BossEvents.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla {
class Database;
}

namespace flotilla::boss {

struct PlanTask {
    QString id; // "t1", "t2"... unique within its plan
    QString description;
    QString agentId; // empty until assigned
    QString agentName;
    QString status;
    QString delegationId; // the delegation carrying it out, once sent
    QString summary;
};

struct WorkPlan {
    QString id;
    QString bossId;
    QString title;
    QString description;
    QString status;
    QList<PlanTask> tasks;
    qint64 createdAt = 0;
    qint64 updatedAt = 0;

    QJsonObject toJson() const;
    static bool fromJson(const QJsonObject &json, WorkPlan *out);
    PlanTask *task(const QString &taskId);
};

class WorkPlanStore final {
    Q_DISABLE_COPY_MOVE(WorkPlanStore)
public:
    WorkPlanStore(Database &db, Publish publish, Clock clock);

    Status load();

    // Newest first; only `bossId`'s when given.
    QList<WorkPlan> list(const QString &bossId = {}) const;
    QJsonArray listJson(const QString &bossId = {}) const;
    const WorkPlan *find(const QString &id) const;

    // A new `proposed` plan; tasks come with their agent already resolved (or none).
    Result<WorkPlan> propose(const QString &bossId, const QString &title,
                             const QString &description, const QList<PlanTask> &tasks);
    // proposed -> executing. 404 unknown, 409 in any other state.
    Result<WorkPlan> approve(const QString &id);
    // proposed | executing -> cancelled; open tasks are cancelled with it.
    Result<WorkPlan> cancel(const QString &id);
    Status remove(const QString &id);
    // Every plan of a deleted boss.
    void removeBoss(const QString &bossId);

    // Task `taskId` of an executing plan is now carried out by `delegationId` (in_progress),
    // or could not be sent (failed, with `error`).
    Result<WorkPlan> startTask(const QString &planId, const QString &taskId, const QString &agentId,
                               const QString &agentName, const QString &delegationId);
    Result<WorkPlan> failTask(const QString &planId, const QString &taskId, const QString &error);
    // The delegation behind a task ended; the plan completes when its last task does.
    // Nothing (nullopt) when no executing plan waits for that delegation.
    std::optional<WorkPlan> delegationEnded(const QString &planId, const QString &delegationId,
                                            bool success, const QString &summary);

private:
    Status save(WorkPlan &plan, QLatin1String event);
    static void settle(WorkPlan &plan);

    Database &m_db;
    Publish m_publish;
    Clock m_clock;
    QHash<QString, WorkPlan> m_plans;
};

} // namespace flotilla::boss
