#pragma once
// flotillad's configuration as one typed struct, parsed from the command line and environment.

#include "base/Clock.h"
#include "http/HttpServer.h"
#include "notify/NotifyConfig.h"
#include "ws/EventHub.h"

#include <QByteArray>
#include <QHostAddress>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace flotilla {

// Exit codes of flotillad, documented in --help and README.
namespace exitcode {
inline constexpr int kOk = 0;
inline constexpr int kUsage = 2;  // bad option or unsafe combination
inline constexpr int kListen = 3; // port in use, address not available
inline constexpr int kDataDir =
    4; // data dir unwritable, locked by another flotillad, unreadable state
} // namespace exitcode

struct ServerConfig {
    QHostAddress host = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 5174;
    QString dataDir;
    QByteArray authToken; // AUTH_TOKEN; wins over tokenFile
    QString tokenFile;    // --token-file: read, or created with a fresh token, at start
    QString configDir;    // ~/.config/flotilla (flotillad.env, the packaged token): agents keep out
    bool insecure = false;
    // --tls-cert/--tls-key: HTTPS and WSS on the port (loaded at start, app/TlsFiles.h).
    QString tlsCert;
    QString tlsKey;
    HttpServerConfig http;
    HubConfig hub;
    // Agent runtime: the Claude Code CLI to run (empty: none found; agents then report it),
    // the environment its processes get, and where it keeps session files (~/.claude).
    QString claudeBin;
    QString claudeHome;
    // The Codex CLI (`codex app-server`; empty: none found) and where it keeps threads
    // ($CODEX_HOME, else ~/.codex).
    QString codexBin;
    QString codexHome;
    QProcessEnvironment agentEnvironment = QProcessEnvironment::systemEnvironment();
    // --worktrees-dir / FLOTILLA_WORKTREES_DIR: where agents' git worktrees go; empty: the data
    // directory's sibling "<data dir>-worktrees" (worktrees/WorktreeProvisioner.h says why).
    QString worktreesDir;
    int maxRestartsPerMinute = 3;
    // Text deltas are merged while some WebSocket client has more than this queued.
    qint64 coalesceAboveBacklogBytes = 256 * 1024;
    // A permission request nobody answers within this is denied.
    int permissionTimeoutMs = 5 * 60 * 1000;
    // --idle-timeout: an agent's CLI process is ended after this many seconds without work
    // (agents' own idleTimeoutSeconds wins); 0: never.
    int idleTimeoutSeconds = 600;
    // The service's clock (base/Clock.h), epoch milliseconds: every timestamp it records, usage
    // records and day budgets included; empty: the system clock (tests inject theirs to cross
    // midnight).
    Clock::Source clock;
    // Outgoing notification channels: retries, timeouts, outbox bounds.
    NotifyConfig notify;
    // --sandbox-default / FLOTILLA_SANDBOX_DEFAULT: the sandbox of `auto` agents that name none,
    // "off" or "workspace"; empty: workspace when bubblewrap works here, else off
    // (sandbox/SandboxPolicy.h).
    QString sandboxDefault;
    // --bwrap / FLOTILLA_BWRAP: the bubblewrap binary (default: bwrap on PATH).
    QString bwrap = QStringLiteral("bwrap");
    // --ssh-config / FLOTILLA_SSH_CONFIG: the ssh client config for hosts (-F); empty: the user's.
    QString sshConfig;
};

struct ParsedCommandLine {
    ServerConfig config;
    int exitCode = -1; // >= 0: do not run, print `message` and exit with it
    QString message;
};

ParsedCommandLine parseCommandLine(const QStringList &arguments, const QProcessEnvironment &env);

} // namespace flotilla
