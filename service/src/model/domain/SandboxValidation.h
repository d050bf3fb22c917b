#pragma once
// The `sandbox` field of agent requests (create, PATCH, class defaults, spawn blocks and tools):
// its shape only. Whether this machine can start it and which paths the service keeps for itself
// is the sandbox policy's question (engine/sandbox/SandboxPolicy.h, through
// AgentRegistry::setSandboxCheck).

#include "base/Error.h"
#include "protocol/AgentSandbox.h"

#include <QJsonObject>

#include <optional>

namespace flotilla {

namespace limits {
inline constexpr int kSandboxPathsMax = 64; // writable, hidden, allowHosts each
} // namespace limits

// Absent -> nullopt; null -> an unset AgentSandbox (the service's default); an object
// {mode, network?, allowHosts?, writable?, hidden?} -> that, paths cleaned. 400 for a wrong type,
// 422 (invalid_sandbox) for a bad value: an unknown mode or network, a relative path, "/", a path
// both writable and hidden, allowHosts without network "allowlist", a malformed host.
Result<std::optional<AgentSandbox>> parseSandbox(const QJsonObject &body);

} // namespace flotilla
