#pragma once
// Wire names of command execution and secrets (POST /api/exec, /api/exec/tasks, /api/secrets and
// the exec_task_* events): message types, JSON keys and error codes, shared by service and
// monitor. Keys both areas use (agentId, agentName, cwd, name, createdAt...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::exec {

using ::flotilla::wire::Name;

namespace msg {
// Server -> client, to every client.
inline constexpr Name ExecTaskStarted{"exec_task_started"};
inline constexpr Name ExecTaskOutput{"exec_task_output"};
inline constexpr Name ExecTaskCompleted{"exec_task_completed"};
} // namespace msg

namespace key {
// POST /api/exec request
inline constexpr Name Command{"command"};
inline constexpr Name TimeoutMs{"timeoutMs"};
// Result and events
inline constexpr Name TaskId{"taskId"};
inline constexpr Name ExitCode{"exitCode"};
inline constexpr Name Output{"output"};
inline constexpr Name Duration{"duration"};
inline constexpr Name Truncated{"truncated"};
inline constexpr Name Killed{"killed"};
inline constexpr Name TimedOut{"timedOut"};
inline constexpr Name Signal{"signal"};
inline constexpr Name IsError{"isError"};
inline constexpr Name SkippedBytes{"skippedBytes"};
inline constexpr Name StartedAt{"startedAt"};
inline constexpr Name Tasks{"tasks"};
// Secrets
inline constexpr Name Secrets{"secrets"};
inline constexpr Name Value{"value"};
} // namespace key

// Machine codes beside the common ones of WireNames.h.
namespace code {
inline constexpr Name UnknownSecret{"unknown_secret"};    // 422: {{NAME}} with no such secret
inline constexpr Name TooManyTasks{"too_many_tasks"};     // 409: concurrent task limit
inline constexpr Name TooManySecrets{"too_many_secrets"}; // 409: secret count limit
} // namespace code

} // namespace flotilla::wire::exec
