#pragma once
// Every name that crosses the wire lives here, once: WebSocket message types, JSON keys,
// machine-readable error codes. Service, monitor and tests all spell them through these.

#include <QLatin1String>

namespace flotilla::wire {

using Name = QLatin1String;

namespace msg {
// Server -> client
inline constexpr Name AgentsUpdate{"agents_update"};
inline constexpr Name AgentCreated{"agent_created"};
inline constexpr Name AgentUpdated{"agent_updated"};
inline constexpr Name AgentDeleted{"agent_deleted"};
inline constexpr Name Output{"output"};
inline constexpr Name ContextUpdate{"context_update"};
inline constexpr Name ContextStats{"context_stats"};
inline constexpr Name CompactingStatus{"compacting_status"};
inline constexpr Name AgentNotification{"agent_notification"};
inline constexpr Name WorkPlansUpdate{"work_plans_update"};
inline constexpr Name Error{"error"};
inline constexpr Name Resynced{"resync"};
// Client -> server
inline constexpr Name RequestSync{"request_sync"};
inline constexpr Name Ping{"ping"};
inline constexpr Name Pong{"pong"};
inline constexpr Name StopAgent{"stop_agent"};
} // namespace msg

namespace key {
inline constexpr Name Type{"type"};
inline constexpr Name Payload{"payload"};
inline constexpr Name Id{"id"};
inline constexpr Name Name_{"name"};
inline constexpr Name Class{"class"};
inline constexpr Name Status{"status"};
inline constexpr Name Cwd{"cwd"};
inline constexpr Name Provider{"provider"};
inline constexpr Name Model{"model"};
inline constexpr Name TaskLabel{"taskLabel"};
inline constexpr Name TrackingStatus{"trackingStatus"};
inline constexpr Name TrackingStatusDetail{"trackingStatusDetail"};
inline constexpr Name CurrentTask{"currentTask"};
inline constexpr Name CurrentTool{"currentTool"};
inline constexpr Name IsProcessRunning{"isProcessRunning"};
inline constexpr Name ContextUsed{"contextUsed"};
inline constexpr Name ContextLimit{"contextLimit"};
inline constexpr Name SessionId{"sessionId"};
inline constexpr Name CreatedAt{"createdAt"};
inline constexpr Name LastActivity{"lastActivity"};
inline constexpr Name TokensUsed{"tokensUsed"};
inline constexpr Name TaskCount{"taskCount"};
inline constexpr Name IsBoss{"isBoss"};
inline constexpr Name BossId{"bossId"};
inline constexpr Name SubordinateIds{"subordinateIds"};
inline constexpr Name AreaId{"areaId"};
inline constexpr Name LastError{"lastError"};
inline constexpr Name AgentId{"agentId"};
inline constexpr Name AgentName{"agentName"};
inline constexpr Name AgentClass{"agentClass"};
inline constexpr Name Title{"title"};
inline constexpr Name Message{"message"};
inline constexpr Name Timestamp{"timestamp"};
inline constexpr Name IconUrl{"iconUrl"};
inline constexpr Name ImageUrl{"imageUrl"};
inline constexpr Name Text{"text"};
inline constexpr Name IsStreaming{"isStreaming"};
inline constexpr Name ToolName{"toolName"};
inline constexpr Name ToolInput{"toolInput"};
inline constexpr Name ToolOutput{"toolOutput"};
inline constexpr Name Prompt{"prompt"};
inline constexpr Name UpdatedAt{"updatedAt"};
inline constexpr Name Success{"success"};
inline constexpr Name Notification{"notification"};
inline constexpr Name Error{"error"};
inline constexpr Name Code{"code"};
inline constexpr Name Version{"version"};
inline constexpr Name Warnings{"warnings"};
inline constexpr Name Reason{"reason"};
inline constexpr Name Active{"active"};
inline constexpr Name AgentIds{"agentIds"};
inline constexpr Name Succeeded{"succeeded"};
inline constexpr Name Failed{"failed"};
inline constexpr Name ToolExecutions{"toolExecutions"};
inline constexpr Name PermissionMode{"permissionMode"};
} // namespace key

// The values of key::Provider: which agent CLI runs an agent. Each is a provider's name()
// (service/src/engine/agents/<name>/).
namespace provider {
inline constexpr Name Claude{"claude"};
inline constexpr Name Codex{"codex"};
} // namespace provider

namespace status {
inline constexpr Name Idle{"idle"};
inline constexpr Name Working{"working"};
inline constexpr Name WaitingPermission{"waiting_permission"};
inline constexpr Name Error{"error"};
inline constexpr Name Stopped{"stopped"};
} // namespace status

// Machine codes carried in every error body: {"error": "...", "code": "..."}.
namespace code {
inline constexpr Name BadJson{"bad_json"};
inline constexpr Name MissingField{"missing_field"};
inline constexpr Name WrongType{"wrong_type"};
inline constexpr Name InvalidValue{"invalid_value"};
inline constexpr Name UnknownField{"unknown_field"};
inline constexpr Name Unauthorized{"unauthorized"};
inline constexpr Name ForbiddenOrigin{"forbidden_origin"};
inline constexpr Name ForbiddenHost{"forbidden_host"};
inline constexpr Name Forbidden{"forbidden"}; // a valid credential without the right to do this
inline constexpr Name UnsupportedMediaType{"unsupported_media_type"};
inline constexpr Name NotFound{"not_found"};
inline constexpr Name RouteNotFound{"route_not_found"};
inline constexpr Name MethodNotAllowed{"method_not_allowed"};
inline constexpr Name Conflict{"conflict"};
inline constexpr Name PayloadTooLarge{"payload_too_large"};
inline constexpr Name HeadersTooLarge{"headers_too_large"};
inline constexpr Name UriTooLong{"uri_too_long"};
inline constexpr Name BadRequest{"bad_request"};
inline constexpr Name Timeout{"request_timeout"};
inline constexpr Name Internal{"internal"};
inline constexpr Name UnknownType{"unknown_type"};
inline constexpr Name CliUnavailable{"cli_unavailable"};
inline constexpr Name ProviderUnavailable{"provider_unavailable"};
inline constexpr Name RestartLimit{"restart_limit"};
} // namespace code

} // namespace flotilla::wire
