#pragma once
// Wire names of hosts (docs/api.md "Hosts"): the machines agents run on over SSH, the agent's
// `host` field, the host routes' fields, events and errors. Shared by service, monitor and tests.

#include "protocol/WireNames.h"

namespace flotilla::wire::host {

using ::flotilla::wire::Name;

// The machine flotillad runs on: always there, never stored, never changed.
inline constexpr Name Local{"local"};

namespace key {
inline constexpr Name Host{"host"}; // on agents: a host's name, "local" by default
inline constexpr Name Name_{"name"};
inline constexpr Name Ssh{"ssh"};
inline constexpr Name ClaudeBin{"claudeBin"};
inline constexpr Name CodexBin{"codexBin"};
inline constexpr Name MaxAgents{"maxAgents"};
// The connection: host_updated, GET /api/hosts
inline constexpr Name State{"state"};
inline constexpr Name Error{"error"};
inline constexpr Name Agents{"agents"}; // how many agents use it
// POST /api/hosts/:name/check
inline constexpr Name Reachable{"reachable"};
inline constexpr Name LatencyMs{"latencyMs"};
inline constexpr Name Home{"home"};
inline constexpr Name User{"user"};
inline constexpr Name Claude{"claude"};
inline constexpr Name Codex{"codex"};
inline constexpr Name Git{"git"};
} // namespace key

// The connection's state.
namespace state {
inline constexpr Name Local{"local"};           // the implicit host: no connection
inline constexpr Name Connecting{"connecting"}; // ssh is starting (first time or a retry)
inline constexpr Name Connected{"connected"};
inline constexpr Name Unreachable{"unreachable"}; // it failed: `error` says why; a retry is due
} // namespace state

namespace msg {
inline constexpr Name HostCreated{"host_created"};
inline constexpr Name HostUpdated{"host_updated"};
inline constexpr Name HostDeleted{"host_deleted"};
} // namespace msg

namespace code {
inline constexpr Name UnknownHost{"unknown_host"}; // 422 on an agent, 404 on /api/hosts/:name
inline constexpr Name HostInUse{"host_in_use"};    // 409: agents still use it
inline constexpr Name HostUnreachable{"host_unreachable"}; // 503: no connection to it now
} // namespace code

} // namespace flotilla::wire::host
