#include "boss/WorkPlanStore.h"

#include "boss/BossLogging.h"
#include "protocol/BossNames.h"
#include "storage/Database.h"

#include <QJsonDocument>
#include <QUuid>

#include <algorithm>

namespace flotilla::boss {

namespace k = wire::key;
namespace c = wire::code;
namespace bk = wire::boss::key;
namespace bm = wire::boss::msg;
namespace ps = wire::boss::plan;
namespace ts = wire::boss::ptask;

namespace {
QJsonValue orNull(const QString &s) {
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

bool isOpen(const PlanTask &t) {
    return t.status == ts::Pending || t.status == ts::InProgress;
}

Error unknownPlan(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no work plan with id '%1'").arg(id));
}

Error wrongState(const WorkPlan &p, const QString &what) {
    return Error::conflict(
        c::Conflict, QStringLiteral("work plan '%1' is %2; only %3").arg(p.id, p.status, what));
}
} // namespace

QJsonObject WorkPlan::toJson() const {
    QJsonArray list;
    for (const PlanTask &t : tasks) {
        list.append(QJsonObject{
            {k::Id, t.id},
            {bk::Description, t.description},
            {k::AgentId, orNull(t.agentId)},
            {k::AgentName, orNull(t.agentName)},
            {k::Status, t.status},
            {bk::DelegationId, orNull(t.delegationId)},
            {bk::Summary, orNull(t.summary)},
        });
    }
    return QJsonObject{
        {k::Id, id},
        {k::BossId, bossId},
        {k::Title, title},
        {bk::Description, description},
        {k::Status, status},
        {bk::Tasks, list},
        {k::CreatedAt, createdAt},
        {k::UpdatedAt, updatedAt},
    };
}

bool WorkPlan::fromJson(const QJsonObject &json, WorkPlan *out) {
    WorkPlan p;
    p.id = json.value(k::Id).toString();
    p.bossId = json.value(k::BossId).toString();
    if (p.id.isEmpty() || p.bossId.isEmpty())
        return false;
    p.title = json.value(k::Title).toString();
    p.description = json.value(bk::Description).toString();
    p.status = json.value(k::Status).toString();
    p.createdAt = json.value(k::CreatedAt).toInteger();
    p.updatedAt = json.value(k::UpdatedAt).toInteger();
    const QJsonArray list = json.value(bk::Tasks).toArray();
    for (const QJsonValue &v : list) {
        const QJsonObject o = v.toObject();
        PlanTask t;
        t.id = o.value(k::Id).toString();
        t.description = o.value(bk::Description).toString();
        t.agentId = o.value(k::AgentId).toString();
        t.agentName = o.value(k::AgentName).toString();
        t.status = o.value(k::Status).toString();
        t.delegationId = o.value(bk::DelegationId).toString();
        t.summary = o.value(bk::Summary).toString();
        p.tasks.append(t);
    }
    *out = p;
    return true;
}

PlanTask *WorkPlan::task(const QString &taskId) {
    for (PlanTask &t : tasks) {
        if (t.id == taskId)
            return &t;
    }
    return nullptr;
}

WorkPlanStore::WorkPlanStore(Database &db, Publish publish, Clock clock)
    : m_db(db)
    , m_publish(std::move(publish))
    , m_clock(std::move(clock)) {
}

Status WorkPlanStore::load() {
    int unreadable = 0;
    Status e =
        m_db.query(QStringLiteral("SELECT data FROM work_plans"), {}, [&](const QVariantList &row) {
            WorkPlan p;
            if (WorkPlan::fromJson(QJsonDocument::fromJson(row.value(0).toByteArray()).object(),
                                   &p))
                m_plans.insert(p.id, p);
            else
                ++unreadable;
        });
    if (unreadable > 0)
        qCWarning(lcBoss) << unreadable << "stored work plan(s) could not be read; skipped";
    qCInfo(lcBoss) << "loaded" << m_plans.size() << "work plan(s)";
    return e;
}

QList<WorkPlan> WorkPlanStore::list(const QString &bossId) const {
    QList<WorkPlan> out;
    for (const WorkPlan &p : m_plans) {
        if (bossId.isEmpty() || p.bossId == bossId)
            out.append(p);
    }
    std::sort(out.begin(), out.end(), [](const WorkPlan &a, const WorkPlan &b) {
        return a.createdAt != b.createdAt ? a.createdAt > b.createdAt : a.id > b.id;
    });
    return out;
}

QJsonArray WorkPlanStore::listJson(const QString &bossId) const {
    QJsonArray array;
    for (const WorkPlan &p : list(bossId))
        array.append(p.toJson());
    return array;
}

const WorkPlan *WorkPlanStore::find(const QString &id) const {
    const auto it = m_plans.constFind(id);
    return it == m_plans.constEnd() ? nullptr : &*it;
}

Status WorkPlanStore::save(WorkPlan &plan, QLatin1String event) {
    plan.updatedAt = m_clock.nowMs();
    if (Status e = m_db.exec(
            QStringLiteral("INSERT INTO work_plans (id, boss_id, updated_at, data) VALUES "
                           "(?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
                           "updated_at = excluded.updated_at, data = excluded.data"),
            {plan.id, plan.bossId, plan.updatedAt,
             QString::fromUtf8(QJsonDocument(plan.toJson()).toJson(QJsonDocument::Compact))}))
        return e;
    m_plans.insert(plan.id, plan);
    m_publish(event, plan.toJson(), true);
    return std::nullopt;
}

void WorkPlanStore::settle(WorkPlan &plan) {
    if (plan.status != ps::Executing)
        return;
    bool anyFailed = false;
    for (const PlanTask &t : std::as_const(plan.tasks)) {
        if (isOpen(t))
            return;
        anyFailed = anyFailed || t.status != ts::Completed;
    }
    plan.status = anyFailed ? ps::Failed : ps::Completed;
    qCInfo(lcBoss).noquote() << "work plan" << plan.id << plan.status;
}

Result<WorkPlan> WorkPlanStore::propose(const QString &bossId, const QString &title,
                                        const QString &description, const QList<PlanTask> &tasks) {
    WorkPlan p;
    p.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    p.bossId = bossId;
    p.title = title;
    p.description = description;
    p.status = ps::Proposed;
    p.tasks = tasks;
    for (qsizetype i = 0; i < p.tasks.size(); ++i) {
        p.tasks[i].id = QStringLiteral("t%1").arg(i + 1);
        p.tasks[i].status = ts::Pending;
    }
    p.createdAt = m_clock.nowMs();
    if (Status e = save(p, bm::WorkPlanCreated))
        return *e;
    return p;
}

Result<WorkPlan> WorkPlanStore::approve(const QString &id) {
    if (!m_plans.contains(id))
        return unknownPlan(id);
    WorkPlan p = m_plans.value(id);
    if (p.status != ps::Proposed)
        return wrongState(p, QStringLiteral("a proposed plan can be approved"));
    p.status = ps::Executing;
    if (Status e = save(p, bm::WorkPlanUpdated))
        return *e;
    return p;
}

Result<WorkPlan> WorkPlanStore::cancel(const QString &id) {
    if (!m_plans.contains(id))
        return unknownPlan(id);
    WorkPlan p = m_plans.value(id);
    if (p.status != ps::Proposed && p.status != ps::Executing)
        return wrongState(p, QStringLiteral("a proposed or executing plan can be cancelled"));
    p.status = ps::Cancelled;
    for (PlanTask &t : p.tasks) {
        if (isOpen(t))
            t.status = ts::Cancelled;
    }
    if (Status e = save(p, bm::WorkPlanUpdated))
        return *e;
    return p;
}

Status WorkPlanStore::remove(const QString &id) {
    if (!m_plans.contains(id))
        return unknownPlan(id);
    if (Status e = m_db.exec(QStringLiteral("DELETE FROM work_plans WHERE id = ?"), {id}))
        return e;
    m_plans.remove(id);
    m_publish(bm::WorkPlanDeleted, QJsonObject{{k::Id, id}}, true);
    return std::nullopt;
}

void WorkPlanStore::removeBoss(const QString &bossId) {
    for (const WorkPlan &p : list(bossId)) {
        if (Status e = remove(p.id))
            qCWarning(lcBoss).noquote() << "work plan" << p.id << "not deleted:" << e->message;
    }
}

Result<WorkPlan> WorkPlanStore::startTask(const QString &planId, const QString &taskId,
                                          const QString &agentId, const QString &agentName,
                                          const QString &delegationId) {
    if (!m_plans.contains(planId))
        return unknownPlan(planId);
    WorkPlan p = m_plans.value(planId);
    PlanTask *t = p.task(taskId);
    if (!t)
        return Error::notFound(
            c::NotFound, QStringLiteral("work plan '%1' has no task '%2'").arg(planId, taskId));
    if (p.status != ps::Executing || t->status != ts::Pending)
        return Error::conflict(c::Conflict,
                               QStringLiteral("task '%1' of work plan '%2' is not waiting to be "
                                              "assigned (plan %3, task %4)")
                                   .arg(taskId, planId, p.status, t->status));
    t->agentId = agentId;
    t->agentName = agentName;
    t->delegationId = delegationId;
    t->status = ts::InProgress;
    if (Status e = save(p, bm::WorkPlanUpdated))
        return *e;
    return p;
}

Result<WorkPlan> WorkPlanStore::failTask(const QString &planId, const QString &taskId,
                                         const QString &error) {
    if (!m_plans.contains(planId))
        return unknownPlan(planId);
    WorkPlan p = m_plans.value(planId);
    PlanTask *t = p.task(taskId);
    if (!t || !isOpen(*t))
        return p;
    t->status = ts::Failed;
    t->summary = error;
    settle(p);
    if (Status e = save(p, bm::WorkPlanUpdated))
        return *e;
    return p;
}

std::optional<WorkPlan> WorkPlanStore::delegationEnded(const QString &planId,
                                                       const QString &delegationId, bool success,
                                                       const QString &summary) {
    if (!m_plans.contains(planId))
        return std::nullopt;
    WorkPlan p = m_plans.value(planId);
    if (p.status != ps::Executing)
        return std::nullopt; // cancelled meanwhile: its tasks no longer move it
    for (PlanTask &t : p.tasks) {
        if (t.delegationId != delegationId || t.status != ts::InProgress)
            continue;
        t.status = success ? ts::Completed : ts::Failed;
        t.summary = summary;
        settle(p);
        if (Status e = save(p, bm::WorkPlanUpdated)) {
            qCWarning(lcBoss).noquote() << "work plan" << planId << "not saved:" << e->message;
            return std::nullopt;
        }
        return p;
    }
    return std::nullopt;
}

} // namespace flotilla::boss
