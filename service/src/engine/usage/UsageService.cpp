#include "usage/UsageService.h"

#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "domain/NotificationService.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QSet>

namespace flotilla {

namespace k = wire::key;
namespace uk = wire::usage::key;

namespace {
// Every lastError a budget sets starts so: such an error is cleared when the budget allows again.
const QString kBudgetError = QStringLiteral("Budget reached: ");

QString money(double usd) {
    return QStringLiteral("$") + QString::number(usd, 'f', usd < 1 ? 4 : 2);
}

bool hasTeam(const Agent &a) {
    return a.isBoss || !a.subordinateIds.isEmpty();
}
} // namespace

UsageService::UsageService(Database &db, AgentRegistry &agents, NotificationService &notifications,
                           Clock clock, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_notifications(notifications)
    , m_clock(std::move(clock))
    , m_store(db) {
    m_dayTimer.setSingleShot(true);
    connect(&m_dayTimer, &QTimer::timeout, this, [this] {
        reconsider();
        armDayTimer();
    });
    connect(&m_agents, &AgentRegistry::agentUpdated, this, &UsageService::onAgentUpdated);
    connect(&m_agents, &AgentRegistry::agentDeleted, this, [this] { reconsider(); });
}

Status UsageService::load() {
    const auto rows = m_store.byAgent(UsageStore::kBeginning, UsageStore::kEnd);
    if (!rows)
        return rows.error();
    QHash<QString, UsageTotals> totals;
    for (const UsageStore::AgentRow &r : *rows)
        totals.insert(r.agentId, r.usage);
    for (const Agent &a : m_agents.agents()) {
        const UsageTotals u = totals.value(a.id);
        if (!(a.usage == u))
            m_agents.updateRuntime(a.id, [&u](Agent &agent) { agent.usage = u; });
    }
    armDayTimer();
    return std::nullopt;
}

QStringList UsageService::teamOf(const Agent &owner) const {
    QStringList team{owner.id};
    QSet<QString> seen{owner.id};
    for (int i = 0; i < team.size(); ++i) { // team grows as subordinates are found
        const Agent *a = m_agents.find(team.at(i));
        if (!a)
            continue;
        for (const QString &sub : a->subordinateIds) {
            if (!seen.contains(sub) && m_agents.find(sub)) {
                seen.insert(sub);
                team.append(sub);
            }
        }
    }
    return team;
}

QList<UsageService::Cap> UsageService::capsOver(const Agent &agent) const {
    QList<Cap> caps;
    const qint64 now = m_clock.nowMs();
    QSet<QString> seen;
    for (const Agent *owner = &agent; owner && !seen.contains(owner->id);
         owner = owner->bossId.isEmpty() ? nullptr : m_agents.find(owner->bossId)) {
        seen.insert(owner->id);
        if (!owner->budget.isSet())
            continue;
        Cap cap;
        cap.owner = *owner;
        cap.team = teamOf(*owner);
        const qint64 from =
            owner->budget.perDay ? UsageStore::dayStart(now) : UsageStore::kBeginning;
        const auto used = m_store.sum(cap.team, from, UsageStore::kEnd);
        if (!used) {
            qCWarning(lcAgents).noquote() << "usage not readable:" << used.error().message;
            continue; // an unreadable record never stops work
        }
        cap.used = *used;
        cap.reached = owner->budget.reachedBy(cap.used);
        caps.append(cap);
    }
    return caps;
}

QString UsageService::describe(const Cap &cap) const {
    const Budget &b = cap.owner.budget;
    const bool byCost = b.costUsd > 0 && cap.used.costUsd >= b.costUsd;
    const QString whose = hasTeam(cap.owner) ? QStringLiteral("the team of '%1' (%2 agents)")
                                                   .arg(cap.owner.name)
                                                   .arg(cap.team.size())
                                             : QStringLiteral("agent '%1'").arg(cap.owner.name);
    const QString used =
        byCost
            ? QStringLiteral("%1 of its %2 budget").arg(money(cap.used.costUsd), money(b.costUsd))
            : QStringLiteral("%1 of its %2 tokens").arg(cap.used.budgetTokens()).arg(b.tokens);
    return kBudgetError +
           QStringLiteral("%1 used %2 %3; messages are refused until the budget is raised%4")
               .arg(whose, used, b.perDay ? QStringLiteral("today") : QStringLiteral("in total"),
                    b.perDay ? QStringLiteral(" or the day ends") : QString());
}

Status UsageService::admit(const QString &agentId) const {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return std::nullopt;
    for (const Cap &cap : capsOver(*agent)) {
        if (cap.reached)
            return Error::conflict(wire::usage::code::BudgetExceeded, describe(cap));
    }
    return std::nullopt;
}

void UsageService::record(const QString &agentId, const UsageTotals &usage) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return;
    QSet<QString> reachedBefore;
    for (const Cap &cap : capsOver(*agent)) {
        if (cap.reached)
            reachedBefore.insert(cap.owner.id);
    }
    if (Status e = m_store.record(agentId, agent->name, m_clock.nowMs(), usage)) {
        qCWarning(lcAgents).noquote()
            << "usage of a turn of agent" << agentId << "not recorded:" << e->message;
        return;
    }
    const Agent self = *agent;
    for (const Cap &cap : capsOver(self)) {
        if (cap.reached && !reachedBefore.contains(cap.owner.id))
            onCrossed(self, cap);
    }
}

void UsageService::onCrossed(const Agent &agent, const Cap &cap) {
    const QString why = describe(cap);
    qCInfo(lcAgents).noquote() << why;
    // Every member shows it, except one still at work: its turn finishes, then its queue waits
    // (the runtime sets the same lastError when it holds it).
    for (const QString &id : cap.team) {
        const Agent *member = m_agents.find(id);
        if (member && member->status != wire::status::Working &&
            member->status != wire::status::WaitingPermission)
            m_agents.updateRuntime(id, [&why](Agent &a) { a.lastError = why; });
    }
    const bool team = hasTeam(cap.owner);
    Q_EMIT budgetExceeded(QJsonObject{
        {k::AgentId, agent.id},
        {k::AgentName, agent.name},
        {uk::Scope, team ? wire::usage::scope::Team : wire::usage::scope::Agent},
        {uk::BudgetOwnerId, cap.owner.id},
        {uk::BudgetOwnerName, cap.owner.name},
        {uk::Budget, cap.owner.budget.toJson()},
        {uk::Used, cap.used.toJson()},
        {k::Message, why},
    });
    const auto posted = m_notifications.post(
        QJsonObject{{k::AgentId, agent.id},
                    {k::Title, QStringLiteral("Budget reached: %1").arg(cap.owner.name).left(200)},
                    {k::Message, why}});
    if (!posted)
        qCWarning(lcAgents).noquote()
            << "budget notification not stored:" << posted.error().message;
}

void UsageService::onAgentUpdated(const QString &id, const QJsonObject &changes) {
    Q_UNUSED(id)
    if (changes.contains(uk::Budget) || changes.contains(k::SubordinateIds) ||
        changes.contains(k::BossId) || changes.contains(k::IsBoss)) {
        reconsider();
        armDayTimer();
    }
}

void UsageService::reconsider() {
    for (const Agent &a : m_agents.agents()) {
        if (a.lastError.startsWith(kBudgetError) && !admit(a.id))
            m_agents.updateRuntime(a.id, [](Agent &agent) { agent.lastError.clear(); });
    }
    Q_EMIT budgetsChanged();
}

void UsageService::armDayTimer() {
    bool anyDayBudget = false;
    for (const Agent &a : m_agents.agents())
        anyDayBudget = anyDayBudget || (a.budget.isSet() && a.budget.perDay);
    if (!anyDayBudget) {
        m_dayTimer.stop();
        return;
    }
    const qint64 now = m_clock.nowMs();
    // A few ms past midnight, so that the day has changed when it fires; at most a day.
    const qint64 wait =
        qBound(qint64(1), UsageStore::nextDayStart(now) - now + 50, qint64(86'400'000));
    m_dayTimer.start(int(wait));
}

Result<QJsonObject> UsageService::report(const QString &groupBy, qint64 fromMs, qint64 toMs) const {
    namespace gb = wire::usage::groupby;
    const auto total = m_store.total(fromMs, toMs);
    if (!total)
        return total.error();
    QJsonArray groups;
    if (groupBy == gb::Agent) {
        const auto rows = m_store.byAgent(fromMs, toMs);
        if (!rows)
            return rows.error();
        QHash<QString, UsageStore::AgentRow> byId;
        for (const UsageStore::AgentRow &r : *rows)
            byId.insert(r.agentId, r);
        // Every agent, in creation order; then deleted agents that used something then.
        for (const Agent &a : m_agents.agents()) {
            QJsonObject g = byId.take(a.id).usage.toJson();
            g.insert(k::AgentId, a.id);
            g.insert(k::AgentName, a.name);
            groups.append(g);
        }
        for (const UsageStore::AgentRow &r : *rows) {
            if (!byId.contains(r.agentId))
                continue;
            QJsonObject g = r.usage.toJson();
            g.insert(k::AgentId, r.agentId);
            g.insert(k::AgentName, r.agentName);
            g.insert(uk::Deleted, true);
            groups.append(g);
        }
    } else if (groupBy == gb::Boss) {
        for (const Agent &a : m_agents.agents()) {
            if (!hasTeam(a))
                continue;
            const QStringList team = teamOf(a);
            const auto used = m_store.sum(team, fromMs, toMs);
            if (!used)
                return used.error();
            QJsonObject g = used->toJson();
            g.insert(uk::BossId, a.id);
            g.insert(uk::BossName, a.name);
            g.insert(uk::AgentIds, QJsonArray::fromStringList(team));
            g.insert(uk::Budget, a.budget.toJson());
            groups.append(g);
        }
    } else {
        const auto days = m_store.byDay(fromMs, toMs);
        if (!days)
            return days.error();
        for (const auto &[day, usage] : *days) {
            QJsonObject g = usage.toJson();
            g.insert(uk::Day, day);
            groups.append(g);
        }
    }
    auto bound = [](qint64 ms, qint64 open) { return ms == open ? QJsonValue() : QJsonValue(ms); };
    return QJsonObject{{uk::GroupBy, groupBy},
                       {uk::From, bound(fromMs, UsageStore::kBeginning)},
                       {uk::To, bound(toMs, UsageStore::kEnd)},
                       {uk::Total, total->toJson()},
                       {uk::Groups, groups}};
}

} // namespace flotilla
