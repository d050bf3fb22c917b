#pragma once
// Which moments of the service run hooks, read from signals that already exist (nothing in the
// runtime or the domain knows about hooks). Each event reaches HookRunner::submit with its agent
// and a payload; the hook reads {event, timestamp, agentId?, agentName?, payload} on stdin.
//  - agent_notification, permission_request, agent_finished, agent_error: the notification
//    channels' events with the same payloads (notify/EventFeed.h), except that
//    permission_request keeps its toolInput (as masked on the WebSocket): a hook is the user's
//    own command on this machine.
//  - turn_finished: AgentRuntime::turnFinished, every turn, failed ones too: {agentId,
//    agentName, result (the final text or the error, cut at 65536 characters), isError}
//  - agent_created: AgentRegistry::agentCreated, the agent as GET /api/agents/:id shows it
//  - exec_finished: the hub's exec_task_completed broadcast (ExecController), plus agentName
//  - budget_exceeded: UsageService::budgetExceeded, the budget_exceeded event's payload
//  - worktree_merged: WorktreeService::merged: {agentId, agentName, strategy, branch, target,
//    targetPath, commit, autoCommit}

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class EventHub;
class HookRunner;
class NotificationService;
class UsageService;
class WorktreeService;

// Connections live as long as `runner`.
void feedHooks(HookRunner &runner, NotificationService &notifications, const AgentRegistry &agents,
               AgentRuntime &runtime, UsageService &usage, WorktreeService &worktrees,
               EventHub &hub);

} // namespace flotilla
