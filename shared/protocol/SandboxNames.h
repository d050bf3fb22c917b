#pragma once
// Wire names of agents' sandboxes (docs/api.md "Sandbox"): the agent's, class default's and spawn
// request's `sandbox` field, the service's option, the health details and the errors. Shared by
// service, monitor and tests.

#include "protocol/WireNames.h"

namespace flotilla::wire::sandbox {

using ::flotilla::wire::Name;

namespace key {
// {mode, network, allowHosts?, writable?, hidden?} or null (the service's default).
inline constexpr Name Sandbox{"sandbox"};
inline constexpr Name Mode{"mode"};
inline constexpr Name Network{"network"};
inline constexpr Name AllowHosts{"allowHosts"};
inline constexpr Name Writable{"writable"};
inline constexpr Name Hidden{"hidden"};
inline constexpr Name AllowUnconfined{"allowUnconfined"};
// GET /api/health details.sandbox
inline constexpr Name Available{"available"};
inline constexpr Name NetworkIsolation{"networkIsolation"};
inline constexpr Name Bwrap{"bwrap"};
inline constexpr Name Version{"version"};
inline constexpr Name Reason{"reason"};
inline constexpr Name Socat{"socat"};
inline constexpr Name NetworkReason{"networkReason"};
// sandbox_blocked {agentId, host, port}; its decision-log entry's tool
inline constexpr Name Host{"host"};
inline constexpr Name Port{"port"};
inline constexpr Name NetworkTool{"network"};
inline constexpr Name Default{"default"};
} // namespace key

namespace mode {
inline constexpr Name Off{"off"};
inline constexpr Name Workspace{"workspace"};
} // namespace mode

namespace network {
inline constexpr Name Full{"full"};
inline constexpr Name Allowlist{"allowlist"};
} // namespace network

namespace code {
// 503: a sandbox was asked for and this machine cannot start one (the message says why and how).
inline constexpr Name SandboxUnavailable{"sandbox_unavailable"};
// 422: a sandbox setting that cannot be honoured (a relative or missing writable path, ...).
inline constexpr Name InvalidSandbox{"invalid_sandbox"};
} // namespace code

namespace msg {
// {agentId, host, port}: the agent's sandbox (network "allowlist") refused a connection.
inline constexpr Name SandboxBlocked{"sandbox_blocked"};
} // namespace msg

} // namespace flotilla::wire::sandbox
