#pragma once
// Wire names of flotillad's MCP server (POST /mcp, docs/api.md "MCP"): the server's name, the
// JSON-RPC methods it answers, its headers and its tools. The service serves them, the agent
// launchers configure the CLIs with them (a Claude agent sees `mcp__flotilla__notify`) and the
// clients present the tool rows by them.

#include "protocol/WireNames.h"

namespace flotilla::wire::mcp {

using ::flotilla::wire::Name;

inline constexpr Name ServerName{"flotilla"}; // what both CLIs prefix the tools with
inline constexpr Name Path{"/mcp"};
// How Claude Code names a tool of this server: "mcp__flotilla__<tool>".
inline constexpr Name ClaudeToolPrefix{"mcp__flotilla__"};
// How Codex names the namespace of this server's tools in its model requests.
inline constexpr Name CodexNamespace{"mcp__flotilla"};
// How tool uses name any MCP server's tool (Claude Code's, and the service's for Codex's MCP
// calls): "mcp__<server>__<tool>". The clients title such a row "<server> · <tool>".
inline constexpr Name ToolNamePrefix{"mcp__"};
inline constexpr Name ToolNameSeparator{"__"};

namespace header {
inline constexpr Name SessionId{"mcp-session-id"};
inline constexpr Name ProtocolVersion{"mcp-protocol-version"};
} // namespace header

namespace method {
inline constexpr Name Initialize{"initialize"};
inline constexpr Name Initialized{"notifications/initialized"};
inline constexpr Name Cancelled{"notifications/cancelled"};
inline constexpr Name Ping{"ping"};
inline constexpr Name ToolsList{"tools/list"};
inline constexpr Name ToolsCall{"tools/call"};
} // namespace method

// JSON-RPC 2.0 error codes (and MCP's use of them).
namespace rpc {
inline constexpr int ParseError = -32700;
inline constexpr int InvalidRequest = -32600;
inline constexpr int MethodNotFound = -32601;
inline constexpr int InvalidParams = -32602; // also: an unknown tool
inline constexpr int InternalError = -32603;
inline constexpr int Forbidden = -32003; // a tool outside the caller's rights
} // namespace rpc

namespace tool {
// Every agent (its own token; the service token names the agent with `agentId`).
inline constexpr Name ReportTask{"report_task"};
inline constexpr Name Notify{"notify"};
inline constexpr Name SetStatus{"set_status"};
inline constexpr Name Whoami{"whoami"};
inline constexpr Name ListBuildings{"list_buildings"};
inline constexpr Name BuildingLogs{"building_logs"};
// Bosses (a boss's token; the service token names the boss with `bossId`).
inline constexpr Name ListTeam{"list_team"};
inline constexpr Name SpawnAgent{"spawn_agent"};
inline constexpr Name Delegate{"delegate"};
inline constexpr Name AgentHistory{"agent_history"}; // a boss: its team; the user: any agent
inline constexpr Name StopAgent{"stop_agent"};       // a boss: its team; the user: any agent
inline constexpr Name WorkPlan{"work_plan"};
// The user's own MCP clients (the service token).
inline constexpr Name ListAgents{"list_agents"};
inline constexpr Name GetAgent{"get_agent"};
inline constexpr Name SendMessage{"send_message"};
inline constexpr Name CreateAgent{"create_agent"};
inline constexpr Name ListPermissionRequests{"list_permission_requests"};
inline constexpr Name AnswerPermission{"answer_permission"};
} // namespace tool

// Tool arguments not named in WireNames.h' keys.
namespace arg {
inline constexpr Name Summary{"summary"};
inline constexpr Name Task{"task"};
inline constexpr Name Reasoning{"reasoning"};
inline constexpr Name AgentName{"agentName"};
inline constexpr Name Limit{"limit"};
inline constexpr Name Offset{"offset"};
inline constexpr Name Tail{"tail"};
inline constexpr Name BuildingId{"buildingId"};
inline constexpr Name PlanId{"planId"};
inline constexpr Name Tasks{"tasks"};
inline constexpr Name Description{"description"};
inline constexpr Name PermissionId{"permissionId"};
inline constexpr Name Granted{"granted"};
inline constexpr Name Skills{"skills"};
inline constexpr Name CustomInstructions{"customInstructions"};
inline constexpr Name Worktree{"worktree"};
} // namespace arg

} // namespace flotilla::wire::mcp
