#pragma once
// Bosses and their teams, kept on the agents themselves (Agent::isBoss, subordinateIds, bossId)
// through the registry, the one owner of agent state; every change is flushed to disk before it
// is acknowledged and announced as boss_subordinates_updated {bossId, subordinateIds}.
//
// Rules: a team member is a non-boss agent (no boss hierarchies, so no cycles); an agent has at
// most one boss, so assigning it to another boss moves it; a team holds at most kMaxTeam agents.

#include "base/Error.h"
#include "boss/BossEvents.h"
#include "protocol/Agent.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QStringList>
#include <functional>

namespace flotilla {
class AgentRegistry;
}

namespace flotilla::boss {

class BossTeam final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BossTeam)
public:
    static constexpr int kMaxTeam = 50;

    // `sandboxOf`: an agent's effective sandbox (sandbox/SandboxPolicy.h); a confined boss's
    // members are confined the same way and work inside what the boss may write.
    using SandboxOf = std::function<AgentSandbox(const Agent &)>;
    BossTeam(AgentRegistry &agents, Publish publish, SandboxOf sandboxOf = {},
             QObject *parent = nullptr);

    // spawn_boss_agent: the agent create fields (class defaults to "boss") plus optional
    // subordinateIds, all checked before anything is created.
    Result<Agent> spawnBoss(const QJsonObject &payload);
    // Adds agents to the team (already there: kept). All checked first; nothing changes on error.
    Status assign(const QString &bossId, const QStringList &subordinateIds);
    Status remove(const QString &bossId, const QString &subordinateId);
    // A ```spawn block item or spawn_agent's arguments: create the agent and add it to the team;
    // announces boss_spawned_agent {bossId, agent}. Its host is its own `host`, else its class's
    // default, else local (not the boss's); cwd defaults to the boss's when both are on the same
    // host and is required otherwise.
    Result<Agent> spawnFor(const QString &bossId, const QJsonObject &spec);

    // 404 unknown, 422 not a boss.
    Result<Agent> boss(const QString &id) const;
    QList<Agent> members(const Agent &boss) const;
    // A member of the boss's team, by id or else by name (case-insensitive).
    Result<Agent> member(const Agent &boss, const QString &agentId, const QString &agentName) const;

private:
    Status checkCandidates(const Agent &boss, const QStringList &ids) const;
    // `host`: where the member runs (empty: here).
    Status confineMember(const Agent &boss, const QString &host, QJsonObject &fields) const;
    Status apply(const QString &bossId, const QStringList &ids);
    void announce(const QString &bossId);
    void onAgentUpdated(const QString &id, const QJsonObject &changes);

    AgentRegistry &m_agents;
    Publish m_publish;
    SandboxOf m_sandboxOf;
    bool m_applying = false; // our own registry updates: announced by us, not by onAgentUpdated
};

} // namespace flotilla::boss
