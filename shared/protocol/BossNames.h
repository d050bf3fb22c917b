#pragma once
// Wire names of the boss features: boss agents and their teams, delegation decisions, delegated
// tasks, report-task and work plans. Shared by service, monitor and tests.
// Keys every area uses (id, bossId, subordinateIds, agentId, status, timestamp...) stay in
// WireNames.h; work_plans_update (sent on connect by the hub) too.

#include "protocol/WireNames.h"

namespace flotilla::wire::boss {

using ::flotilla::wire::Name;

namespace msg {
// Client -> server
inline constexpr Name SpawnBossAgent{"spawn_boss_agent"};
inline constexpr Name AssignSubordinates{"assign_subordinates"};
inline constexpr Name RemoveSubordinate{"remove_subordinate"};
inline constexpr Name SendBossCommand{"send_boss_command"};
inline constexpr Name RequestDelegationHistory{"request_delegation_history"};
inline constexpr Name ApproveWorkPlan{"approve_work_plan"};
inline constexpr Name CancelWorkPlan{"cancel_work_plan"};
inline constexpr Name RequestWorkPlans{"request_work_plans"};
// Server -> client
inline constexpr Name DelegationDecision{"delegation_decision"};
inline constexpr Name BossSubordinatesUpdated{"boss_subordinates_updated"};
inline constexpr Name DelegationHistory{"delegation_history"};
inline constexpr Name BossSpawnedAgent{"boss_spawned_agent"};
inline constexpr Name AgentTaskStarted{"agent_task_started"};
inline constexpr Name AgentTaskOutput{"agent_task_output"};
inline constexpr Name AgentTaskCompleted{"agent_task_completed"};
inline constexpr Name WorkPlanCreated{"work_plan_created"};
inline constexpr Name WorkPlanUpdated{"work_plan_updated"};
inline constexpr Name WorkPlanDeleted{"work_plan_deleted"};
} // namespace msg

namespace key {
// Commands and delegation decisions
inline constexpr Name Command{"command"};
inline constexpr Name SelectedAgentId{"selectedAgentId"};
inline constexpr Name SelectedAgentName{"selectedAgentName"};
inline constexpr Name Task{"task"};
inline constexpr Name Reasoning{"reasoning"};
inline constexpr Name Confidence{"confidence"};
inline constexpr Name Decisions{"decisions"};
inline constexpr Name Limit{"limit"};
// Delegated tasks and reports
inline constexpr Name SubordinateId{"subordinateId"};
inline constexpr Name SubordinateName{"subordinateName"};
inline constexpr Name TaskId{"taskId"};
inline constexpr Name Summary{"summary"};
inline constexpr Name Source{"source"};
inline constexpr Name CompletedAt{"completedAt"};
inline constexpr Name Forwarded{"forwarded"};
inline constexpr Name Agent{"agent"};
// Work plans
inline constexpr Name PlanId{"planId"};
inline constexpr Name PlanTaskId{"planTaskId"};
inline constexpr Name Tasks{"tasks"};
inline constexpr Name Description{"description"};
inline constexpr Name DelegationId{"delegationId"};
inline constexpr Name WorkPlans{"workPlans"};
} // namespace key

// delegation_decision.status
namespace delegation {
inline constexpr Name Sent{"sent"};           // recorded, task sent to the subordinate
inline constexpr Name Completed{"completed"}; // reported completed, or its turn ended normally
inline constexpr Name Failed{"failed"};       // reported failed, turn error, stopped, lost
} // namespace delegation

// agent_task_completed.source: what ended the task.
namespace source {
inline constexpr Name Report{"report"};           // POST /api/agents/:id/report-task
inline constexpr Name Turn{"turn"};               // the subordinate's turn ended
inline constexpr Name Interrupted{"interrupted"}; // stopped, deleted, never started, restart
} // namespace source

// report-task status, delegation confidence.
namespace report {
inline constexpr Name Completed{"completed"};
inline constexpr Name Failed{"failed"};
} // namespace report
namespace confidence {
inline constexpr Name High{"high"};
inline constexpr Name Medium{"medium"};
inline constexpr Name Low{"low"};
} // namespace confidence

// Work plan status: proposed -> executing -> completed | failed; proposed|executing -> cancelled.
namespace plan {
inline constexpr Name Proposed{"proposed"};
inline constexpr Name Executing{"executing"};
inline constexpr Name Completed{"completed"};
inline constexpr Name Failed{"failed"};
inline constexpr Name Cancelled{"cancelled"};
} // namespace plan

// Work plan task status: pending -> in_progress -> completed | failed; pending|in_progress ->
// cancelled (with the plan).
namespace ptask {
inline constexpr Name Pending{"pending"};
inline constexpr Name InProgress{"in_progress"};
inline constexpr Name Completed{"completed"};
inline constexpr Name Failed{"failed"};
inline constexpr Name Cancelled{"cancelled"};
} // namespace ptask

// Fenced block tags a boss answers with.
namespace block {
inline constexpr Name Delegation{"delegation"};
inline constexpr Name Spawn{"spawn"};
inline constexpr Name WorkPlan{"work-plan"};
} // namespace block

} // namespace flotilla::wire::boss
