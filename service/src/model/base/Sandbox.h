#pragma once
// Where and how a child process starts: as it is, or inside a bubblewrap sandbox (bwrap). Every
// place flotillad starts a child (agents' CLIs, exec tasks, buildings, git, hooks) describes the
// command as a ProcessSpec and asks the one ProcessLauncher for a LaunchPlan; base/ChildProcess.h
// starts, signals and reads the exit of what the plan says. A remote host or a container later
// changes the plan, not the call sites.
//
// The sandbox (docs/security.md "Sandbox"): the whole file system read-only, writable only what
// the spec lists, hidden (an empty tmpfs, or an empty file for a file) what it hides, a private
// /tmp and /dev/shm, its own user, PID and IPC namespaces, no capabilities (as root a sandbox
// that keeps them can remount / read-write: measured, docs/plans/sandbox.md), no new privileges
// (bwrap sets it), --new-session (no TIOCSTI into our terminal) and --die-with-parent.

#include "base/Error.h"
#include "base/RemoteLaunch.h"

#include <QHash>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace flotilla {

// Network "allowlist" (docs/security.md "The sandbox"): the process gets a network namespace of
// its own, with loopback only. Its one way out is flotillad's egress proxy (engine/sandbox/
// EgressProxy) behind `proxySocket`, bound into the sandbox and served there by socat as an HTTP
// proxy on 127.0.0.1:kSandboxProxyPort (HTTP(S)_PROXY point at it). Each of `tunnelPorts`, a
// loopback service the process may use by its address (flotillad's own port, a model API on
// loopback), listens inside on 127.0.0.1:<port> and goes out through the same proxy (CONNECT),
// which checks it like any other destination.
inline constexpr int kSandboxProxyPort = 3128;
struct SandboxNetwork {
    bool isolated = false;
    QString proxySocket;
    QList<int> tunnelPorts;
};

// What to confine a process to. Paths are absolute and clean (QDir::cleanPath).
struct SandboxSpec {
    bool enabled = false;
    // Bound read-write at the same path. Each must exist.
    QStringList writable;
    // Bound read-only at the same path (after the hidden ones: a file the process must read
    // inside a hidden directory, e.g. its token header file in the data directory). Each must
    // exist.
    QStringList readOnly;
    // Hidden: an empty tmpfs over a directory, the launcher's empty file over a file. A path that
    // does not exist is left out (nothing to hide).
    QStringList hidden;
    // Environment changes inside the sandbox (on top of the spec's environment).
    QHash<QString, QString> setEnvironment;
    QStringList unsetEnvironment;
    SandboxNetwork network;
};

// One command to start.
struct ProcessSpec {
    QString program;
    QStringList arguments;
    QString cwd;
    QProcessEnvironment environment;
    SandboxSpec sandbox;
    // Another machine, through ssh (base/RemoteLaunch.h); unset: here.
    RemoteSpec remote;
};

// What to hand QProcess (base/ChildProcess.h applyLaunchPlan): the command as given, or bwrap with
// the command after "--".
struct LaunchPlan {
    QString program;
    QStringList arguments;
    QString cwd;
    QProcessEnvironment environment;
    bool sandboxed = false;
    // ssh to another machine: the starter writes stdinPreamble first (base/RemoteLaunch.h), and
    // the exit status is the remote command's (255: ssh itself failed, the link is gone).
    bool remote = false;
    QByteArray stdinPreamble;
    RemoteSignal remoteSignal; // how its group over there is signalled (remote only)
    // The command as asked (for messages: "cannot start git ..."), whatever program runs.
    QString displayProgram;
};

// What this machine allows, probed once at start (probeSandbox).
struct SandboxSupport {
    bool usable = false; // a sandbox can start (bwrap found, namespaces work)
    bool networkIsolation =
        false;             // and network "allowlist": a network namespace works, socat found
    QString bwrap;         // the binary's absolute path; empty: not found
    QString version;       // "bubblewrap 0.8.0"
    QString socat;         // the forwarder inside an isolated network; empty: not found
    QString reason;        // why not usable, with the fix; empty when usable
    QString networkReason; // why no network isolation, with the fix; empty when there is
    // bwrap ran and the kernel refused it a namespace (a chroot, a container, userns off): a CLI's
    // own sandbox (Codex's bwrap) cannot start either. Not set when bwrap is only missing.
    bool namespacesBlocked = false;
    // GET /api/health details: {available, networkIsolation, bwrap, version, reason}.
    QJsonObject toJson() const;
};

// `path` is `dir` or below it (both absolute and clean; an empty `dir` holds nothing): what a
// sandbox's binds and the policy's checks ask of paths.
bool isPathWithin(const QString &path, const QString &dir);

// `bwrapProgram`: a name looked up in PATH or an absolute path. Runs `bwrap --version` and then
// the very base every sandbox uses around /bin/true (and again with --unshare-net), each at most
// `timeoutMs`. Blocking: call once, at start.
SandboxSupport probeSandbox(const QString &bwrapProgram, int timeoutMs = 5000,
                            const QString &socatProgram = QStringLiteral("socat"));

// bwrap's arguments for `spec` (everything before "--"). Exposed for the tests; the launcher
// uses it. `emptyFile`: an existing empty, read-only file bound over hidden files.
QStringList bwrapArguments(const SandboxSpec &spec, const QString &cwd, const QString &emptyFile);

class ProcessLauncher final {
public:
    // `emptyFile`: see bwrapArguments; the launcher creates it (0444) when missing.
    ProcessLauncher(SandboxSupport support, QString emptyFile);

    const SandboxSupport &support() const { return m_support; }

    // Remote (spec.remote): ssh around it (base/RemoteLaunch.h); 503 sandbox_unavailable with a
    // sandbox (not built for remote hosts yet), 500 when a file to ship cannot be read.
    // Not sandboxed: the spec as is (never fails). Sandboxed: bwrap around it;
    // 503 sandbox_unavailable (the probe's reason) when the probe said no; 422 invalid_sandbox
    // when the cwd or a writable or read-only path is missing, or the cwd is hidden (bwrap would
    // only say "Can't chdir" after the fact).
    Result<LaunchPlan> plan(const ProcessSpec &spec) const;

private:
    SandboxSupport m_support;
    QString m_emptyFile;
};

} // namespace flotilla
