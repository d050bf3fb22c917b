#include "boss/BossTeam.h"

#include "base/Sandbox.h"
#include "boss/BossLogging.h"
#include "domain/AgentRegistry.h"
#include "domain/AgentValidation.h"
#include "protocol/BossNames.h"
#include "protocol/SandboxNames.h"

#include <QFileInfo>

#include <QJsonArray>

namespace flotilla::boss {

namespace k = wire::key;
namespace c = wire::code;
namespace bk = wire::boss::key;
namespace bm = wire::boss::msg;

namespace {
const QString kBossClass = QStringLiteral("boss");

// "host 'box'", or "this machine" for the local one (an empty name).
QString hostLabel(const QString &host) {
    return host.isEmpty() ? QStringLiteral("this machine") : QStringLiteral("host '%1'").arg(host);
}

Error unknownAgent(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
}

// Restores the flag however the update ends.
struct ApplyingGuard {
    explicit ApplyingGuard(bool &flag)
        : m_flag(flag) {
        m_flag = true;
    }
    ~ApplyingGuard() { m_flag = false; }
    Q_DISABLE_COPY_MOVE(ApplyingGuard)
    bool &m_flag;
};
} // namespace

BossTeam::BossTeam(AgentRegistry &agents, Publish publish, SandboxOf sandboxOf, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_publish(std::move(publish))
    , m_sandboxOf(std::move(sandboxOf)) {
    connect(&agents, &AgentRegistry::agentUpdated, this, &BossTeam::onAgentUpdated);
}

Result<Agent> BossTeam::boss(const QString &id) const {
    const Agent *a = m_agents.find(id);
    if (!a)
        return unknownAgent(id);
    if (!a->isBoss)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("agent '%1' (%2) is not a boss").arg(a->name, id));
    return *a;
}

QList<Agent> BossTeam::members(const Agent &boss) const {
    QList<Agent> team;
    for (const QString &id : boss.subordinateIds) {
        if (const Agent *a = m_agents.find(id))
            team.append(*a);
    }
    return team;
}

Result<Agent> BossTeam::member(const Agent &boss, const QString &agentId,
                               const QString &agentName) const {
    const QList<Agent> team = members(boss);
    for (const Agent &a : team) {
        if (!agentId.isEmpty() ? a.id == agentId
                               : a.name.compare(agentName, Qt::CaseInsensitive) == 0)
            return a;
    }
    const QString who = agentId.isEmpty() ? QStringLiteral("named '%1'").arg(agentName)
                                          : QStringLiteral("with id '%1'").arg(agentId);
    return Error::invalid(c::InvalidValue,
                          QStringLiteral("no member of your team %1 (team: %2)")
                              .arg(
                                  who, team.isEmpty() ? QStringLiteral("empty") : [&] {
                                      QStringList names;
                                      for (const Agent &a : team)
                                          names << a.name;
                                      return names.join(QStringLiteral(", "));
                                  }()));
}

Status BossTeam::checkCandidates(const Agent &boss, const QStringList &ids) const {
    int newcomers = 0;
    for (const QString &id : ids) {
        const Agent *a = m_agents.find(id);
        if (!a)
            return unknownAgent(id);
        if (id == boss.id)
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("a boss cannot be its own subordinate"));
        if (a->isBoss)
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("agent '%1' is a boss; bosses cannot be "
                                                 "subordinates")
                                      .arg(a->name));
        newcomers += !boss.subordinateIds.contains(id);
    }
    if (boss.subordinateIds.size() + newcomers > kMaxTeam)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("a team holds at most %1 agents").arg(kMaxTeam));
    return std::nullopt;
}

// Adds `ids` to the boss's team, taking them from their previous boss; flushed before returning.
Status BossTeam::apply(const QString &bossId, const QStringList &ids) {
    QStringList changedBosses;
    {
        ApplyingGuard guard(m_applying);
        for (const QString &id : ids) {
            const Agent *a = m_agents.find(id);
            if (!a || a->bossId == bossId)
                continue;
            const QString previous = a->bossId;
            if (!previous.isEmpty() && m_agents.find(previous)) {
                m_agents.updateRuntime(previous,
                                       [&](Agent &old) { old.subordinateIds.removeAll(id); });
                if (!changedBosses.contains(previous))
                    changedBosses << previous;
            }
            m_agents.updateRuntime(id, [&](Agent &s) { s.bossId = bossId; });
        }
        m_agents.updateRuntime(bossId, [&](Agent &b) {
            for (const QString &id : ids) {
                if (!b.subordinateIds.contains(id))
                    b.subordinateIds.append(id);
            }
        });
    }
    if (Status e = m_agents.flush())
        return e;
    for (const QString &old : std::as_const(changedBosses))
        announce(old);
    announce(bossId);
    return std::nullopt;
}

void BossTeam::announce(const QString &bossId) {
    const Agent *b = m_agents.find(bossId);
    if (!b)
        return;
    m_publish(bm::BossSubordinatesUpdated,
              QJsonObject{{k::BossId, bossId},
                          {k::SubordinateIds, QJsonArray::fromStringList(b->subordinateIds)}},
              true);
}

Result<Agent> BossTeam::spawnBoss(const QJsonObject &payload) {
    QJsonObject fields = payload;
    QStringList subordinates;
    if (fields.contains(k::SubordinateIds)) {
        const QJsonValue v = fields.take(k::SubordinateIds);
        if (!v.isArray())
            return Error::badRequest(c::WrongType, QStringLiteral("field 'subordinateIds' must "
                                                                  "be an array of strings"));
        for (const QJsonValue &id : v.toArray()) {
            if (!id.isString())
                return Error::badRequest(c::WrongType, QStringLiteral("field 'subordinateIds' "
                                                                      "must be an array of "
                                                                      "strings"));
            if (!subordinates.contains(id.toString()))
                subordinates << id.toString();
        }
    }
    if (!fields.contains(k::Class))
        fields.insert(k::Class, kBossClass);
    const auto draft = m_agents.parseDraft(fields);
    if (!draft)
        return draft.error();
    Agent probe; // the future boss, for the candidate checks before anything is created
    probe.id = QStringLiteral("(new boss)");
    probe.isBoss = true;
    if (Status e = checkCandidates(probe, subordinates))
        return *e;
    const auto created = m_agents.create(*draft);
    if (!created)
        return created.error();
    {
        ApplyingGuard guard(m_applying);
        m_agents.updateRuntime(created->id, [](Agent &a) { a.isBoss = true; });
    }
    if (Status e = apply(created->id, subordinates))
        return *e;
    qCInfo(lcBoss).noquote() << "boss" << created->id << created->name << "created with"
                             << subordinates.size() << "subordinate(s)";
    return *m_agents.find(created->id);
}

Status BossTeam::assign(const QString &bossId, const QStringList &subordinateIds) {
    const auto b = boss(bossId);
    if (!b)
        return b.error();
    if (subordinateIds.isEmpty())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'subordinateIds' must not be empty"));
    if (Status e = checkCandidates(*b, subordinateIds))
        return e;
    return apply(bossId, subordinateIds);
}

Status BossTeam::remove(const QString &bossId, const QString &subordinateId) {
    const auto b = boss(bossId);
    if (!b)
        return b.error();
    if (!b->subordinateIds.contains(subordinateId))
        return Error::notFound(c::NotFound,
                               QStringLiteral("agent '%1' is not a subordinate of boss '%2'")
                                   .arg(subordinateId, b->name));
    {
        ApplyingGuard guard(m_applying);
        m_agents.updateRuntime(bossId,
                               [&](Agent &a) { a.subordinateIds.removeAll(subordinateId); });
        m_agents.updateRuntime(subordinateId, [&](Agent &a) {
            if (a.bossId == bossId)
                a.bossId.clear();
        });
    }
    if (Status e = m_agents.flush())
        return e;
    announce(bossId);
    return std::nullopt;
}

Result<Agent> BossTeam::spawnFor(const QString &bossId, const QJsonObject &spec) {
    const auto b = boss(bossId);
    if (!b)
        return b.error();
    QJsonObject fields = spec;
    if (fields.value(k::Class).toString() == kBossClass)
        return Error::invalid(c::InvalidValue, QStringLiteral("a boss cannot spawn another boss"));
    if (b->subordinateIds.size() >= kMaxTeam)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("a team holds at most %1 agents").arg(kMaxTeam));
    // Where the member runs (its `host`, else its class's default, else here) decides whether the
    // boss's directory means anything to it and whether a confined boss may make it: read it
    // first, from the fields as given (a stand-in cwd when they name none).
    const bool ownCwd = fields.contains(k::Cwd);
    QJsonObject probe = fields;
    if (!ownCwd)
        probe.insert(k::Cwd, QStringLiteral("/"));
    const auto placed = m_agents.parseDraft(probe);
    if (!placed)
        return placed.error();
    if (!ownCwd) {
        if (placed->host != b->host)
            return Error::badRequest(
                c::MissingField,
                QStringLiteral("field 'cwd' is required for an agent on %1 (the default, "
                               "the directory of boss '%2', is on %3)")
                    .arg(hostLabel(placed->host), b->name, hostLabel(b->host)));
        fields.insert(k::Cwd, b->cwd);
    }
    if (Status e = confineMember(*b, placed->host, fields))
        return *e;
    const auto draft = m_agents.parseDraft(fields);
    if (!draft)
        return draft.error();
    const auto created = m_agents.create(*draft);
    if (!created)
        return created.error();
    if (Status e = apply(bossId, {created->id}))
        return *e;
    const Agent agent = *m_agents.find(created->id);
    qCInfo(lcBoss).noquote() << "boss" << bossId << "spawned" << agent.id << agent.name;
    m_publish(bm::BossSpawnedAgent, QJsonObject{{k::BossId, bossId}, {bk::Agent, agent.toJson()}},
              true);
    return agent;
}

// A boss in a sandbox must not get out of it through its team: a member it spawns gets the boss's
// own sandbox (asking for another is refused) and works inside what the boss may write. That is
// this machine's sandbox, so a member on another host (where there is none yet, and the boss's
// directories mean nothing) is refused rather than made unconfined.
Status BossTeam::confineMember(const Agent &boss, const QString &host, QJsonObject &fields) const {
    if (!m_sandboxOf)
        return std::nullopt;
    const AgentSandbox box = m_sandboxOf(boss);
    if (!box.confines())
        return std::nullopt;
    if (!host.isEmpty())
        return Error::forbidden(c::Forbidden,
                                QStringLiteral("boss '%1' runs in a sandbox: the agents it spawns "
                                               "run in the same one on this machine, not on "
                                               "host '%2'")
                                    .arg(boss.name, host));
    const QJsonValue asked = fields.value(wire::sandbox::key::Sandbox);
    if (!asked.isUndefined() && !asked.isNull() && AgentSandbox::fromJson(asked) != box)
        return Error::forbidden(c::Forbidden,
                                QStringLiteral("boss '%1' runs in a sandbox: the agents it spawns "
                                               "get the same one")
                                    .arg(boss.name));
    fields.insert(wire::sandbox::key::Sandbox, box.toJson());
    const QString cwd = QFileInfo(fields.value(k::Cwd).toString()).canonicalFilePath();
    QStringList roots = box.writable;
    roots << QFileInfo(boss.worktree.isSet() ? boss.worktree.path : boss.cwd).canonicalFilePath();
    for (const QString &root : std::as_const(roots)) {
        if (isPathWithin(cwd, root))
            return std::nullopt;
    }
    return Error::forbidden(c::Forbidden,
                            QStringLiteral("boss '%1' runs in a sandbox: the agents it spawns "
                                           "work inside its own directory (%2)")
                                .arg(boss.name, roots.constLast()));
}

void BossTeam::onAgentUpdated(const QString &id, const QJsonObject &changes) {
    // The registry unlinks a deleted agent from its boss on its own; clients learn it here.
    if (m_applying || !changes.contains(k::SubordinateIds))
        return;
    const Agent *a = m_agents.find(id);
    if (a && a->isBoss)
        announce(id);
}

} // namespace flotilla::boss
