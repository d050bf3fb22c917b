#pragma once
// Wire names of what shapes agents: classes, skills, saved prompts, hooks, buildings and the
// stored 3D model assets (docs/api.md "Shaping agents"). Shared by service, monitor and tests.
// Keys every area uses (id, name, agentId, createdAt...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::shaping {

using ::flotilla::wire::Name;

// Server -> client events. *_created and *_updated carry the whole item; *_deleted carries
// {slug or id, name}.
namespace msg {
inline constexpr Name ClassCreated{"class_created"};
inline constexpr Name ClassUpdated{"class_updated"};
inline constexpr Name ClassDeleted{"class_deleted"};
inline constexpr Name SkillCreated{"skill_created"};
inline constexpr Name SkillUpdated{"skill_updated"};
inline constexpr Name SkillDeleted{"skill_deleted"};
inline constexpr Name PromptCreated{"prompt_created"};
inline constexpr Name PromptUpdated{"prompt_updated"};
inline constexpr Name PromptDeleted{"prompt_deleted"};
inline constexpr Name HookCreated{"hook_created"};
inline constexpr Name HookUpdated{"hook_updated"};
inline constexpr Name HookDeleted{"hook_deleted"};
inline constexpr Name HookRun{"hook_run"}; // payload: the finished run, with `failed`
inline constexpr Name BuildingCreated{"building_created"};
inline constexpr Name BuildingUpdated{"building_updated"};
inline constexpr Name BuildingDeleted{"building_deleted"};
inline constexpr Name BuildingOutput{"building_output"}; // {buildingId, text, stream}
inline constexpr Name ModelCreated{"custom_3d_model_created"};
inline constexpr Name ModelDeleted{"custom_3d_model_deleted"};
inline constexpr Name AreaUpdated{"area_updated"}; // payload: area
} // namespace msg

namespace key {
// Classes
inline constexpr Name Slug{"slug"};
inline constexpr Name Description{"description"};
inline constexpr Name Builtin{"builtin"};
inline constexpr Name Instructions{"instructions"};
inline constexpr Name Defaults{"defaults"};
inline constexpr Name Skills{"skills"};
inline constexpr Name AllowedTools{"allowedTools"};
inline constexpr Name DisallowedTools{"disallowedTools"};
inline constexpr Name Icon{"icon"};
inline constexpr Name HasIcon{"hasIcon"};
inline constexpr Name IconUrl{"iconUrl"};
inline constexpr Name MediaType{"mediaType"};
inline constexpr Name DataBase64{"dataBase64"};
inline constexpr Name UpdatedAt{"updatedAt"};
inline constexpr Name PermissionMode{"permissionMode"};
inline constexpr Name IdleTimeoutSeconds{"idleTimeoutSeconds"};
inline constexpr Name Worktree{"worktree"};
// Skills
inline constexpr Name Content{"content"};
inline constexpr Name Enabled{"enabled"};
inline constexpr Name Skill{"skill"}; // on an `output` chunk: the skill a tool use invokes
// Agents
inline constexpr Name CustomInstructions{"customInstructions"};
// Saved prompts
inline constexpr Name Text{"text"};
inline constexpr Name Scope{"scope"};
inline constexpr Name AgentName{"agentName"};
// Hooks
inline constexpr Name Event{"event"};
inline constexpr Name Filter{"filter"};
inline constexpr Name Command{"command"};
inline constexpr Name TimeoutSeconds{"timeoutSeconds"};
inline constexpr Name LastRun{"lastRun"};
inline constexpr Name HookId{"hookId"};
inline constexpr Name StartedAt{"startedAt"};
inline constexpr Name DurationMs{"durationMs"};
inline constexpr Name ExitCode{"exitCode"};
inline constexpr Name Signal{"signal"};
inline constexpr Name TimedOut{"timedOut"};
inline constexpr Name Error{"error"};
inline constexpr Name Output{"output"};
inline constexpr Name OutputTruncated{"outputTruncated"};
inline constexpr Name Failed{"failed"};
inline constexpr Name Runs{"runs"};
// Buildings
inline constexpr Name Env{"env"};
inline constexpr Name Autostart{"autostart"};
inline constexpr Name Restart{"restart"};
inline constexpr Name Url{"url"};
inline constexpr Name State{"state"};
inline constexpr Name Pid{"pid"};
inline constexpr Name Restarts{"restarts"};
inline constexpr Name UptimeSeconds{"uptimeSeconds"};
inline constexpr Name BuildingId{"buildingId"};
inline constexpr Name Stream{"stream"};
inline constexpr Name Lines{"lines"};
inline constexpr Name Truncated{"truncated"};
inline constexpr Name SkippedBytes{"skippedBytes"};
// 3D models
inline constexpr Name Format{"format"};
inline constexpr Name Size{"size"};
inline constexpr Name Sha256{"sha256"};
} // namespace key

namespace param {
inline constexpr Name Tail{"tail"};
inline constexpr Name AgentId{"agentId"};
} // namespace param

// Building states.
namespace state {
inline constexpr Name Stopped{"stopped"};
inline constexpr Name Starting{"starting"};
inline constexpr Name Running{"running"};
inline constexpr Name Exited{"exited"};
inline constexpr Name Crashed{"crashed"};
} // namespace state

// Building output streams (building_output and the logs route).
namespace stream {
inline constexpr Name Stdout{"stdout"};
inline constexpr Name Stderr{"stderr"};
} // namespace stream

// Building restart policies.
namespace restart {
inline constexpr Name No{"no"};
inline constexpr Name OnFailure{"on-failure"};
inline constexpr Name Always{"always"};
} // namespace restart

// Hook events besides the notification channels' (NotifyNames.h).
namespace hookevent {
inline constexpr Name TurnFinished{"turn_finished"};
inline constexpr Name AgentCreated{"agent_created"};
inline constexpr Name ExecFinished{"exec_finished"};
inline constexpr Name BudgetExceeded{"budget_exceeded"};
inline constexpr Name WorktreeMerged{"worktree_merged"};
} // namespace hookevent

// A hook's `cwd` that means the working directory of the event's agent.
namespace hookcwd {
inline constexpr Name Agent{"agent"};
} // namespace hookcwd

// What a hook's command finds in its environment (its stdin holds the whole event).
namespace hookenv {
inline constexpr Name Event{"FLOTILLA_EVENT"};
inline constexpr Name AgentId{"FLOTILLA_AGENT_ID"}; // empty for an event without an agent
inline constexpr Name HookId{"FLOTILLA_HOOK_ID"};
} // namespace hookenv

// Keys of hook events' payloads besides the shared ones (turn_finished: {agentId, agentName,
// result, isError}).
namespace hookkey {
inline constexpr Name Result{"result"};
inline constexpr Name IsError{"isError"};
} // namespace hookkey

// Built-in classes (listed with builtin: true, never deleted).
namespace builtin {
inline constexpr Name Builder{"builder"};
inline constexpr Name Boss{"boss"};
} // namespace builtin

namespace code {
inline constexpr Name ClassInUse{"class_in_use"};
inline constexpr Name BuiltinClass{"builtin_class"};
inline constexpr Name SkillInUse{"skill_in_use"};
inline constexpr Name UnknownSkill{"unknown_skill"};
inline constexpr Name InvalidIcon{"invalid_icon"};
inline constexpr Name TooLarge{"too_large"};
inline constexpr Name QuotaExceeded{"quota_exceeded"};
inline constexpr Name AlreadyRunning{"already_running"};
inline constexpr Name TooManyBuildings{"too_many_buildings"};
inline constexpr Name InvalidModel{"invalid_model"}; // a 3D model file that is not its format
} // namespace code

// Formats of a stored 3D model (`format` of POST /api/custom-3d-models).
namespace modelformat {
inline constexpr Name Gltf{"gltf"};
inline constexpr Name Glb{"glb"};
inline constexpr Name Obj{"obj"};
inline constexpr Name Fbx{"fbx"};
} // namespace modelformat

} // namespace flotilla::wire::shaping
