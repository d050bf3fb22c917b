#pragma once
// The boss flow: a command goes to the boss (a real agent) with its team and the answer formats;
// the blocks of the boss's final answer become spawned members, delegations and work plans; each
// delegated task is followed through the subordinate's turn (agent_task_started/output/completed)
// until it ends or the subordinate reports (report-task), and the report goes back to the boss as
// its next message. Work plans are approved into delegations and follow their tasks.
//
// Any successful turn of a boss is read for blocks, not only the ones our commands started: a boss
// talked to over POST /message may delegate too (it learnt the formats from earlier messages).

#include "base/Clock.h"
#include "base/Error.h"
#include "boss/BlockParser.h"
#include "boss/BossEvents.h"
#include "boss/BossTeam.h"
#include "boss/DelegationStore.h"
#include "boss/TurnTracker.h"
#include "boss/WorkPlanStore.h"

#include <QHash>
#include <QObject>

namespace flotilla {
class AgentRegistry;
class AgentRuntime;
class Database;
} // namespace flotilla

namespace flotilla::boss {

struct ReportOutcome {
    QString bossId; // empty: the agent has no boss
    QString taskId; // the delegation the report completed, if one was running
    bool forwarded = false;
    QString reason; // why it was not forwarded
};

class BossService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BossService)
public:
    static constexpr int kMaxDelegationsPerAnswer = 20;
    static constexpr int kMaxSummaryChars = 4000; // a final answer kept as a task's summary

    BossService(AgentRegistry &agents, AgentRuntime &runtime, Database &db, Publish publish,
                Clock clock, QObject *parent = nullptr);
    ~BossService() override;

    // Loads the work plans; delegations left open by the last run are failed (their turns died
    // with it) and their plans follow.
    Status start();

    BossTeam &team() { return m_team; }
    const WorkPlanStore &plans() const { return m_plans; }

    Status sendCommand(const QString &bossId, const QString &command);
    Result<QList<Delegation>> history(const QString &bossId, int limit) const;
    Result<ReportOutcome> report(const QString &agentId, bool success, const QString &summary);

    Result<WorkPlan> approvePlan(const QString &planId);
    Result<WorkPlan> cancelPlan(const QString &planId);
    Status deletePlan(const QString &planId);

    // The boss tools of the MCP server (api/mcp/), with the checks and records of the blocks:
    // spawn_agent (a ```spawn item, any create field), delegate (one ```delegation item) and
    // work_plan (a ```work-plan block; `replacesId`, when given, names a proposed plan of this
    // boss that the new one replaces: it is cancelled first).
    Result<Agent> spawnMember(const QString &bossId, const QJsonObject &spec);
    Result<Delegation> delegateTask(const QString &bossId, const QJsonObject &item);
    Result<WorkPlan> proposePlan(const QString &bossId, const QJsonObject &draft,
                                 const QString &replacesId = {});

private:
    // Our messages to bosses (commands, reports, plan assignments): what the turn answers.
    struct BossTurn {
        QString bossId;
        QString command;
    };
    struct Target {
        DelegationItem item;
        Agent agent;
    };

    Status sendToBoss(const Agent &boss, const QString &command,
                      const std::function<QString(const QString &ref)> &message);
    void onStarted(const QString &agentId, const QString &ref);
    void onOutput(const QString &ref, const OutputChunk &chunk);
    void onEnded(const QString &agentId, const QString &ref, const QString &text, bool isError);
    void onLost(const QString &agentId, const QStringList &refs, const QString &why);
    void onDeleted(const QString &agentId);

    void readAnswer(const QString &bossId, const QString &command, const QString &text);
    void runDelegationBlock(const QString &bossId, const QString &command, const FencedBlock &block,
                            int *budget);
    void runWorkPlanBlock(const QString &bossId, const FencedBlock &block);
    Status checkPlanLink(const QString &bossId, const DelegationItem &item) const;
    Result<Delegation> delegate(const Agent &boss, const Agent &subordinate, const QString &command,
                                const DelegationItem &item);
    void finish(const QString &delegationId, bool success, const QString &summary,
                QLatin1String source);
    void errorLine(const QString &bossId, const QString &text);

    AgentRegistry &m_agents;
    AgentRuntime &m_runtime;
    Publish m_publish;
    Clock m_clock;
    DelegationStore m_delegations;
    WorkPlanStore m_plans;
    BossTeam m_team;
    TurnTracker m_turns;
    QHash<QString, Delegation> m_open; // delegations whose task has not ended, by id
    QHash<QString, BossTurn> m_bossTurns;
};

} // namespace flotilla::boss
