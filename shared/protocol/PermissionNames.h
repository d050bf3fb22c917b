#pragma once
// Wire names of permissions: the agent's permissionMode, the permission_request /
// permission_response / permission_resolved messages and their keys; standing rules
// (permission_rules_update, /api/permission-rules) and the decision log.

#include "protocol/WireNames.h"

namespace flotilla::wire::permission {

namespace mode {
inline constexpr Name Ask{"ask"};   // tool uses the CLI would ask about reach the clients
inline constexpr Name Auto{"auto"}; // everything is allowed
} // namespace mode

namespace msg {
// Server -> client
inline constexpr Name Request{"permission_request"};
inline constexpr Name Resolved{"permission_resolved"};
inline constexpr Name RulesUpdate{"permission_rules_update"};
// Client -> server
inline constexpr Name Response{"permission_response"};
} // namespace msg

namespace key {
inline constexpr Name Tool{"tool"};
inline constexpr Name ToolInput{"toolInput"};
inline constexpr Name ToolUseId{"toolUseId"};
inline constexpr Name PermissionId{"permissionId"};
inline constexpr Name Granted{"granted"};
inline constexpr Name RequestId{"requestId"}; // the peer's spelling of permissionId
inline constexpr Name Approved{"approved"};   // the peer's spelling of granted
inline constexpr Name Remember{"remember"};   // permission_response: "agent" | "project" | "global"
inline constexpr Name Pattern{"pattern"};
inline constexpr Name Scope{"scope"};
inline constexpr Name Decision{"decision"};
inline constexpr Name Source{"source"};
inline constexpr Name Rules{"rules"};
inline constexpr Name RuleId{"ruleId"};
inline constexpr Name By{"by"};
inline constexpr Name Requests{"requests"};
inline constexpr Name Decisions{"decisions"};
inline constexpr Name Via{"via"};               // decision log: how the request came (via::)
inline constexpr Name Suppressed{"suppressed"}; // decision log: hook entries not logged before
} // namespace key

// How a logged request reached the service: an agent's permission hook (an HTTP call with the
// agent's own token, which anything holding that token can make), or the CLI's own process
// protocol (Codex's approvals over stdio).
namespace via {
inline constexpr Name Hook{"hook"};
inline constexpr Name Process{"process"};
} // namespace via

// A rule's decision, and who decided a request (the decision log's `by`).
namespace decision {
inline constexpr Name Allow{"allow"};
inline constexpr Name Deny{"deny"};
} // namespace decision
namespace by {
inline constexpr Name Client{"client"};
inline constexpr Name Rule{"rule"};
inline constexpr Name Timeout{"timeout"};
inline constexpr Name Stop{"stop"};
inline constexpr Name Sandbox{"sandbox"}; // an allow-list sandbox refused a connection
} // namespace by
namespace remember {
inline constexpr Name Agent{"agent"};
inline constexpr Name Project{"project"};
inline constexpr Name Global{"global"};
} // namespace remember

// What the CLI sends the hook on stdin and expects back on stdout (verified with 2.1.329).
namespace hook {
inline constexpr Name EventName{"hook_event_name"};
inline constexpr Name PreToolUse{"PreToolUse"};
inline constexpr Name PermissionRequest{"PermissionRequest"};
inline constexpr Name ToolName{"tool_name"};
inline constexpr Name ToolInput{"tool_input"};
inline constexpr Name ToolUseId{"tool_use_id"};
} // namespace hook

} // namespace flotilla::wire::permission
