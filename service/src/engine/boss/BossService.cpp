#include "boss/BossService.h"

#include "agents/AgentRuntime.h"
#include "boss/BossInstructions.h"
#include "boss/BossLogging.h"
#include "domain/AgentRegistry.h"
#include "protocol/BossNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

namespace flotilla::boss {

namespace k = wire::key;
namespace c = wire::code;
namespace bk = wire::boss::key;
namespace bm = wire::boss::msg;
namespace ds = wire::boss::delegation;
namespace src = wire::boss::source;
namespace ps = wire::boss::plan;
namespace ts = wire::boss::ptask;

namespace {
QString newId() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QJsonValue orNull(const QString &s) {
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}
} // namespace

BossService::BossService(AgentRegistry &agents, AgentRuntime &runtime, Database &db,
                         Publish publish, Clock clock, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_runtime(runtime)
    , m_publish(std::move(publish))
    , m_clock(std::move(clock))
    , m_delegations(db, m_clock)
    , m_plans(db, m_publish, m_clock)
    , m_team(agents, m_publish, [&runtime](const Agent &agent) { return runtime.sandboxOf(agent); })
    , m_turns(agents, runtime) {
    connect(&m_turns, &TurnTracker::started, this, &BossService::onStarted);
    connect(&m_turns, &TurnTracker::output, this, &BossService::onOutput);
    connect(&m_turns, &TurnTracker::ended, this, &BossService::onEnded);
    connect(&m_turns, &TurnTracker::lost, this, &BossService::onLost);
    connect(&agents, &AgentRegistry::agentDeleted, this, &BossService::onDeleted);
}

BossService::~BossService() = default;

Status BossService::start() {
    if (Status e = m_plans.load())
        return e;
    const auto failed =
        m_delegations.failUnfinished(QStringLiteral("The service stopped before the task ended."));
    if (!failed)
        return failed.error();
    for (const Delegation &d : *failed) {
        if (!d.planId.isEmpty())
            m_plans.delegationEnded(d.planId, d.id, false, d.summary);
    }
    if (!failed->isEmpty())
        qCInfo(lcBoss) << failed->size() << "delegated task(s) interrupted by the last stop";
    return std::nullopt;
}

// --- Commands and messages to bosses -----------------------------------------------------------

Status BossService::sendToBoss(const Agent &boss, const QString &command,
                               const std::function<QString(const QString &)> &message) {
    const QString ref = newId();
    m_bossTurns.insert(ref, BossTurn{boss.id, command});
    m_turns.expect(boss.id, ref);
    const auto sent = m_runtime.sendMessage(boss.id, message(ref));
    if (!sent) {
        m_turns.forget(ref);
        m_bossTurns.remove(ref);
        return sent.error();
    }
    return std::nullopt;
}

Status BossService::sendCommand(const QString &bossId, const QString &command) {
    const auto boss = m_team.boss(bossId);
    if (!boss)
        return boss.error();
    const QList<Agent> team = m_team.members(*boss);
    qCInfo(lcBoss).noquote() << "command for boss" << bossId << "with" << team.size()
                             << "member(s)";
    return sendToBoss(*boss, command, [&](const QString &ref) {
        return commandMessage(ref, *boss, team, command);
    });
}

Result<QList<Delegation>> BossService::history(const QString &bossId, int limit) const {
    if (!m_agents.find(bossId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(bossId));
    return m_delegations.history(bossId, limit);
}

// --- Reading a boss's answer -------------------------------------------------------------------

void BossService::errorLine(const QString &bossId, const QString &text) {
    qCInfo(lcBoss).noquote() << "boss" << bossId << text; // the boss's mistake, not ours
    OutputChunk chunk;
    chunk.agentId = bossId;
    chunk.text = text;
    chunk.isStreaming = false;
    chunk.timestamp = m_clock.nowMs();
    m_publish(wire::msg::Output, chunk.toJson(), true);
}

void BossService::readAnswer(const QString &bossId, const QString &command, const QString &text) {
    const QList<FencedBlock> blocks = extractBlocks(text, {QString(wire::boss::block::Delegation),
                                                           QString(wire::boss::block::Spawn),
                                                           QString(wire::boss::block::WorkPlan)});
    // New members first, so delegations in the same answer can name them.
    for (const FencedBlock &b : blocks) {
        if (b.tag != wire::boss::block::Spawn)
            continue;
        const auto specs = parseSpawnBlock(b.body);
        if (!specs) {
            errorLine(bossId, QStringLiteral("Spawn error: ") + specs.error().message);
            continue;
        }
        for (const QJsonObject &spec : *specs) {
            const auto spawned = m_team.spawnFor(bossId, spec);
            if (!spawned)
                errorLine(bossId,
                          QStringLiteral("Spawn error: %1: %2")
                              .arg(spec.value(k::Name_).toString(), spawned.error().message));
        }
    }
    int budget = kMaxDelegationsPerAnswer;
    for (const FencedBlock &b : blocks) {
        if (b.tag == wire::boss::block::Delegation)
            runDelegationBlock(bossId, command, b, &budget);
        else if (b.tag == wire::boss::block::WorkPlan)
            runWorkPlanBlock(bossId, b);
    }
}

Status BossService::checkPlanLink(const QString &bossId, const DelegationItem &item) const {
    if (item.planId.isEmpty())
        return std::nullopt;
    const WorkPlan *plan = m_plans.find(item.planId);
    if (!plan || plan->bossId != bossId)
        return Error::invalid(
            c::InvalidValue, QStringLiteral("no work plan of yours with id '%1'").arg(item.planId));
    for (const PlanTask &t : plan->tasks) {
        if (t.id != item.planTaskId)
            continue;
        if (plan->status != ps::Executing || t.status != ts::Pending || !t.delegationId.isEmpty())
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("task '%1' of work plan '%2' is not waiting "
                                                 "for an agent")
                                      .arg(t.id, plan->title));
        return std::nullopt;
    }
    return Error::invalid(
        c::InvalidValue,
        QStringLiteral("work plan '%1' has no task '%2'").arg(plan->title, item.planTaskId));
}

void BossService::runDelegationBlock(const QString &bossId, const QString &command,
                                     const FencedBlock &block, int *budget) {
    const auto items = parseDelegationBlock(block.body);
    if (!items)
        return errorLine(bossId, QStringLiteral("Delegation error: ") + items.error().message);
    const auto boss = m_team.boss(bossId);
    if (!boss)
        return errorLine(bossId, QStringLiteral("Delegation error: ") + boss.error().message);
    // The whole block is checked before any of it runs: a boss never gets half of a block.
    QList<Target> targets;
    for (qsizetype i = 0; i < items->size(); ++i) {
        const DelegationItem &item = items->at(i);
        const QString prefix =
            items->size() > 1 ? QStringLiteral("item %1: ").arg(i + 1) : QString();
        const auto member = m_team.member(*boss, item.agentId, item.agentName);
        if (!member)
            return errorLine(bossId, QStringLiteral("Delegation error: ") + prefix +
                                         member.error().message);
        if (Status e = checkPlanLink(bossId, item))
            return errorLine(bossId, QStringLiteral("Delegation error: ") + prefix + e->message);
        targets.append(Target{item, *member});
    }
    if (targets.size() > *budget)
        return errorLine(bossId, QStringLiteral("Delegation error: at most %1 delegations per "
                                                "answer; this block was not run")
                                     .arg(kMaxDelegationsPerAnswer));
    *budget -= int(targets.size());
    for (const Target &t : std::as_const(targets))
        delegate(*boss, t.agent, command, t.item);
}

void BossService::runWorkPlanBlock(const QString &bossId, const FencedBlock &block) {
    const auto draft = parseWorkPlanBlock(block.body);
    if (!draft)
        return errorLine(bossId, QStringLiteral("Work plan error: ") + draft.error().message);
    const auto boss = m_team.boss(bossId);
    if (!boss)
        return errorLine(bossId, QStringLiteral("Work plan error: ") + boss.error().message);
    QList<PlanTask> tasks;
    for (qsizetype i = 0; i < draft->tasks.size(); ++i) {
        const PlanTaskDraft &d = draft->tasks.at(i);
        PlanTask t;
        t.description = d.description;
        if (!d.agentId.isEmpty() || !d.agentName.isEmpty()) {
            const auto member = m_team.member(*boss, d.agentId, d.agentName);
            if (!member)
                return errorLine(bossId, QStringLiteral("Work plan error: task %1: %2")
                                             .arg(i + 1)
                                             .arg(member.error().message));
            t.agentId = member->id;
            t.agentName = member->name;
        }
        tasks.append(t);
    }
    const auto plan = m_plans.propose(bossId, draft->title, draft->description, tasks);
    if (!plan)
        return errorLine(bossId, QStringLiteral("Work plan error: ") + plan.error().message);
    qCInfo(lcBoss).noquote() << "boss" << bossId << "proposed work plan" << plan->id;
}

// --- Delegated tasks ---------------------------------------------------------------------------

Result<Delegation> BossService::delegate(const Agent &boss, const Agent &subordinate,
                                         const QString &command, const DelegationItem &item) {
    Delegation d;
    d.id = newId();
    d.bossId = boss.id;
    d.command = command;
    d.selectedAgentId = subordinate.id;
    d.selectedAgentName = subordinate.name;
    d.task = item.task;
    d.reasoning = item.reasoning;
    d.confidence = item.confidence;
    d.status = ds::Sent;
    d.timestamp = m_clock.nowMs();
    d.planId = item.planId;
    d.planTaskId = item.planTaskId;
    if (Status e = m_delegations.add(d)) {
        errorLine(boss.id, QStringLiteral("Delegation error: not recorded: ") + e->message);
        return *e;
    }
    m_open.insert(d.id, d);
    m_publish(bm::DelegationDecision, d.toJson(), true);
    qCInfo(lcBoss).noquote() << "boss" << boss.id << "delegated" << d.id << "to" << subordinate.id;
    if (!d.planId.isEmpty()) {
        const auto started =
            m_plans.startTask(d.planId, d.planTaskId, subordinate.id, subordinate.name, d.id);
        if (!started)
            qCWarning(lcBoss).noquote() << "work plan task not linked:" << started.error().message;
    }
    m_turns.expect(subordinate.id, d.id);
    const auto sent =
        m_runtime.sendMessage(subordinate.id, taskMessage(d.id, boss, subordinate, d.task));
    if (!sent) {
        m_turns.forget(d.id);
        finish(d.id, false, QStringLiteral("The task could not be sent: ") + sent.error().message,
               src::Interrupted);
        return sent.error();
    }
    return d;
}

void BossService::onStarted(const QString &agentId, const QString &ref) {
    const auto it = m_open.constFind(ref);
    if (it == m_open.constEnd())
        return;
    m_publish(bm::AgentTaskStarted,
              QJsonObject{{k::BossId, it->bossId},
                          {bk::SubordinateId, agentId},
                          {bk::SubordinateName, it->selectedAgentName},
                          {bk::TaskId, it->id},
                          {bk::Task, it->task},
                          {bk::PlanId, orNull(it->planId)},
                          {bk::PlanTaskId, orNull(it->planTaskId)}},
              true);
}

void BossService::onOutput(const QString &ref, const OutputChunk &chunk) {
    const auto it = m_open.constFind(ref);
    if (it == m_open.constEnd())
        return;
    // The subordinate's chunk as it is (text, isStreaming, tool fields), addressed to the boss.
    QJsonObject payload = chunk.toJson();
    payload.remove(k::AgentId);
    payload.insert(k::BossId, it->bossId);
    payload.insert(bk::SubordinateId, chunk.agentId);
    payload.insert(bk::TaskId, it->id);
    m_publish(bm::AgentTaskOutput, payload, !chunk.isStreaming);
}

void BossService::onEnded(const QString &agentId, const QString &ref, const QString &text,
                          bool isError) {
    if (m_open.contains(ref)) {
        QString summary = text.trimmed().left(kMaxSummaryChars);
        if (summary.isEmpty())
            summary = isError ? QStringLiteral("The turn ended with an error.")
                              : QStringLiteral("(no final answer)");
        return finish(ref, !isError, summary, src::Turn);
    }
    const BossTurn ours = m_bossTurns.take(ref);
    const Agent *a = m_agents.find(agentId);
    if (isError || !a || !a->isBoss)
        return;
    readAnswer(agentId, ours.bossId.isEmpty() ? m_turns.turnText(agentId) : ours.command, text);
}

void BossService::onLost(const QString &, const QStringList &refs, const QString &why) {
    for (const QString &ref : refs) {
        m_bossTurns.remove(ref);
        finish(ref, false, why, src::Interrupted);
    }
}

void BossService::onDeleted(const QString &agentId) {
    // A deleted boss takes its plans and history with it; its running tasks end on their own.
    if (!m_plans.list(agentId).isEmpty())
        m_plans.removeBoss(agentId);
    if (Status e = m_delegations.removeBoss(agentId))
        qCWarning(lcBoss).noquote() << "delegation history not deleted:" << e->message;
}

void BossService::finish(const QString &delegationId, bool success, const QString &summary,
                         QLatin1String source) {
    const auto it = m_open.find(delegationId);
    if (it == m_open.end())
        return;
    Delegation d = *it;
    m_open.erase(it);
    d.status = success ? ds::Completed : ds::Failed;
    d.summary = summary;
    d.completedAt = m_clock.nowMs();
    if (Status e = m_delegations.update(d))
        qCWarning(lcBoss).noquote() << "delegation" << d.id << "not saved:" << e->message;
    qCInfo(lcBoss).noquote() << "delegation" << d.id << d.status << "by" << source;
    m_publish(bm::DelegationDecision, d.toJson(), true);
    m_publish(bm::AgentTaskCompleted,
              QJsonObject{{k::BossId, d.bossId},
                          {bk::SubordinateId, d.selectedAgentId},
                          {bk::SubordinateName, d.selectedAgentName},
                          {bk::TaskId, d.id},
                          {k::Success, success},
                          {bk::Summary, summary},
                          {bk::Source, source}},
              true);
    if (!d.planId.isEmpty())
        m_plans.delegationEnded(d.planId, d.id, success, summary);
}

// --- report-task -------------------------------------------------------------------------------

Result<ReportOutcome> BossService::report(const QString &agentId, bool success,
                                          const QString &summary) {
    const Agent *sub = m_agents.find(agentId);
    if (!sub)
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    const Agent subordinate = *sub;
    // The report is about the delegated task whose turn runs now, if any; otherwise it is a
    // free report to the agent's boss.
    const QString running = m_turns.running(agentId);
    const bool tracked = m_open.contains(running);
    const Delegation task = tracked ? m_open.value(running) : Delegation();
    ReportOutcome out;
    out.bossId = tracked ? task.bossId : subordinate.bossId;
    const Agent *bossAgent = out.bossId.isEmpty() ? nullptr : m_agents.find(out.bossId);
    if (!bossAgent) {
        out.bossId.clear();
        out.reason = QStringLiteral("agent '%1' has no boss").arg(subordinate.name);
        return out;
    }
    const Agent boss = *bossAgent;
    if (tracked) {
        out.taskId = task.id;
        finish(task.id, success, summary, src::Report);
    } else {
        m_publish(bm::AgentTaskCompleted,
                  QJsonObject{{k::BossId, boss.id},
                              {bk::SubordinateId, agentId},
                              {bk::SubordinateName, subordinate.name},
                              {bk::TaskId, QJsonValue::Null},
                              {k::Success, success},
                              {bk::Summary, summary},
                              {bk::Source, src::Report}},
                  true);
    }
    const QList<Agent> team = m_team.members(boss);
    const Status sent = sendToBoss(
        boss, QStringLiteral("Task report from %1").arg(subordinate.name), [&](const QString &ref) {
            return reportMessage(ref, boss, team, subordinate, success, summary, task.task);
        });
    out.forwarded = !sent;
    if (sent)
        out.reason = sent->message;
    return out;
}

// --- Work plans --------------------------------------------------------------------------------

Result<WorkPlan> BossService::approvePlan(const QString &planId) {
    const WorkPlan *existing = m_plans.find(planId);
    if (existing && !m_agents.find(existing->bossId))
        return Error::conflict(c::Conflict, QStringLiteral("the boss of this plan is gone"));
    const auto approved = m_plans.approve(planId);
    if (!approved)
        return approved.error();
    const Agent boss = *m_agents.find(approved->bossId);
    qCInfo(lcBoss).noquote() << "work plan" << planId << "approved";
    const QString command = QStringLiteral("Work plan \"%1\"").arg(approved->title);
    QList<PlanTask> unassigned;
    for (const PlanTask &t : approved->tasks) {
        if (t.agentId.isEmpty()) {
            unassigned.append(t);
            continue;
        }
        const auto member = m_team.member(boss, t.agentId, QString());
        if (!member) {
            m_plans.failTask(planId, t.id, member.error().message);
            continue;
        }
        DelegationItem item;
        item.agentId = member->id;
        item.task = t.description;
        item.reasoning = QStringLiteral("Task %1 of the approved work plan").arg(t.id);
        item.confidence = wire::boss::confidence::High;
        item.planId = planId;
        item.planTaskId = t.id;
        if (const auto sent = delegate(boss, *member, command, item); !sent)
            m_plans.failTask(planId, t.id,
                             sent.error().message); // no-op when finish() already failed it
    }
    if (!unassigned.isEmpty()) {
        const QList<Agent> team = m_team.members(boss);
        const WorkPlan plan = *m_plans.find(planId);
        const Status sent =
            sendToBoss(boss, command + QStringLiteral(" approved"), [&](const QString &ref) {
                return planAssignMessage(ref, boss, team, plan, unassigned);
            });
        if (sent) {
            for (const PlanTask &t : std::as_const(unassigned))
                m_plans.failTask(planId, t.id,
                                 QStringLiteral("The boss could not be asked to assign it: ") +
                                     sent->message);
        }
    }
    return *m_plans.find(planId);
}

Result<WorkPlan> BossService::cancelPlan(const QString &planId) {
    // Tasks already sent keep running (the agents may be mid-edit); they no longer move the plan.
    return m_plans.cancel(planId);
}

Status BossService::deletePlan(const QString &planId) {
    return m_plans.remove(planId);
}

// --- the boss tools of the MCP server (api/mcp): the checks and records of the blocks ------------

Result<Agent> BossService::spawnMember(const QString &bossId, const QJsonObject &spec) {
    return m_team.spawnFor(bossId, spec);
}

Result<Delegation> BossService::delegateTask(const QString &bossId, const QJsonObject &item) {
    // Parsed as a one-item delegation block: the same fields, limits and messages.
    const auto items = parseDelegationBlock(QString::fromUtf8(QJsonDocument(item).toJson()));
    if (!items)
        return items.error();
    const auto boss = m_team.boss(bossId);
    if (!boss)
        return boss.error();
    const DelegationItem &one = items->constFirst();
    const auto member = m_team.member(*boss, one.agentId, one.agentName);
    if (!member)
        return member.error();
    if (Status e = checkPlanLink(bossId, one))
        return *e;
    return delegate(*boss, *member, QStringLiteral("(the delegate tool)"), one);
}

Result<WorkPlan> BossService::proposePlan(const QString &bossId, const QJsonObject &draft,
                                          const QString &replacesId) {
    const auto boss = m_team.boss(bossId);
    if (!boss)
        return boss.error();
    const WorkPlan *old = replacesId.isEmpty() ? nullptr : m_plans.find(replacesId);
    if (!replacesId.isEmpty() && (!old || old->bossId != bossId))
        return Error::notFound(c::NotFound,
                               QStringLiteral("this boss has no work plan '%1'").arg(replacesId));
    if (old && old->status != wire::boss::plan::Proposed)
        return Error::conflict(c::Conflict, QStringLiteral("work plan '%1' is %2: only a proposed "
                                                           "plan can be replaced")
                                                .arg(replacesId, old->status));
    const auto parsed = parseWorkPlanBlock(QString::fromUtf8(QJsonDocument(draft).toJson()));
    if (!parsed)
        return parsed.error();
    QList<PlanTask> tasks;
    for (qsizetype i = 0; i < parsed->tasks.size(); ++i) {
        const PlanTaskDraft &d = parsed->tasks.at(i);
        PlanTask t;
        t.description = d.description;
        if (!d.agentId.isEmpty() || !d.agentName.isEmpty()) {
            const auto member = m_team.member(*boss, d.agentId, d.agentName);
            if (!member)
                return Error::invalid(
                    member.error().code,
                    QStringLiteral("task %1: %2").arg(i + 1).arg(member.error().message));
            t.agentId = member->id;
            t.agentName = member->name;
        }
        tasks.append(t);
    }
    if (old) {
        if (const auto cancelled = m_plans.cancel(replacesId); !cancelled)
            return cancelled.error();
    }
    return m_plans.propose(bossId, parsed->title, parsed->description, tasks);
}

} // namespace flotilla::boss
