#pragma once
// What every child flotillad starts (agents' CLI, exec shells) gets right after fork, before
// exec: its own process group, death with flotillad, and the user's umask. And how a LaunchPlan
// (base/Sandbox.h) is started, signalled and its exit read.
//
// flotillad runs with umask 077 so its own files stay private, but agents and exec commands
// create files in the user's projects: those must get the mask the user started flotillad with
// (usually 022), not ours.
//
// In base/ because both agents/ and exec/ start children and main() sets the mask: a helper of
// the lowest layer, not of the composition root.

#include <QtGlobal>

#include <optional>
#include <sys/types.h>

class QProcess;

namespace flotilla {

struct LaunchPlan;

// Called once by main() with the mask it replaced. Default (tests, embedders): 022.
void setChildUmask(mode_t mask);
mode_t childUmask();

// For QProcess::setChildProcessModifier: async-signal-safe calls only.
void prepareChildProcess();

// --- Starting, signalling and reading the exit of a LaunchPlan (base/Sandbox.h) ---------------

// Program, arguments, cwd, environment and prepareChildProcess as the modifier.
void applyLaunchPlan(QProcess &process, const LaunchPlan &plan);

// Sends `signal` to what `pid` (the QProcess's pid, the leader of its group) started. Not
// sandboxed: the whole group. Sandboxed, any signal but SIGKILL goes to the command's own session
// inside the sandbox (bwrap --new-session: its leader is bwrap's only child), so the CLI gets its
// SIGTERM and its grace; SIGKILL goes to the outer group (bwrap dies, the PID namespace with it).
// When the inner leader cannot be found: the group.
void signalLaunched(qint64 pid, bool sandboxed, int signal);

// How a child ended: exactly one of the two is set. bwrap reports a command killed by signal N as
// the exit code 128+N, so a sandboxed NormalExit 129..192 reads as that signal.
struct ChildExit {
    std::optional<int> exitCode;
    std::optional<int> signal;
};
ChildExit decodeExit(bool sandboxed, int code, int qprocessExitStatus);

} // namespace flotilla
