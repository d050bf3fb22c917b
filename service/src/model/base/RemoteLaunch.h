#pragma once
// Where a child starts when it belongs to another machine (docs/api.md "Hosts"): the launcher
// (base/Sandbox.h) turns the ProcessSpec into `ssh <options> <destination> -- sh -c <wrapper>
// <runDir> <cwd> <program> <args...>` through the host's connection (engine/hosts/SshLink: one
// ControlMaster per host that flotillad owns).
//
// Nothing secret goes on a command line on either side: the command line carries the program,
// its arguments and paths. The environment the service adds (FLOTILLA_URL, the agent's id, an exec
// command with its secrets) and the files the process reads (its token header file, its MCP
// config, its instructions) travel first on the process's stdin, as a preamble the wrapper reads
// line by line (a shell's `read` takes a pipe one byte at a time, so what follows is the
// program's): `E<name>=<value>` exports, `F<file>=<content>` writes <runDir>/<file> (umask 077), an
// empty line ends it. Values are escaped for printf %b (\\, \n, \0ooo). Arguments and environment
// values that name a shipped file are rewritten to its copy in <runDir>, which the wrapper
// removes when the program ends.

#include "base/Error.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace flotilla {

struct RemoteSpec {
    QString ssh;            // the ssh program; empty: the process runs here
    QStringList sshOptions; // before the destination (-F, -S <control path>, -o ..., -p)
    QString destination;    // user@host or an alias
    // This process's directory on that machine for its shipped files: absolute, unique.
    QString runDir;
    // Local files to ship into runDir (each one's file name must be unique).
    QStringList files;
    // The variables of the spec's environment to send (the others are that machine's own).
    QStringList sendEnvironment;
    // What the placement knows of that machine for the caller: flotillad's address as it is
    // reached from there (the link's remote forward), and the agent CLI to run there.
    QString callbackUrl;
    QString cliProgram;

    bool isRemote() const { return !ssh.isEmpty(); }
};

// Who knows the hosts (engine/hosts/HostDirectory): how a process reaches `host` now.
class RemotePlacement {
public:
    RemotePlacement() = default;
    virtual ~RemotePlacement() = default;
    Q_DISABLE_COPY_MOVE(RemotePlacement)

    // A RemoteSpec for one process on `host` (not "local"): its ssh over the host's connection,
    // a fresh run directory named after `tag`, and `provider`'s CLI there (empty: none asked).
    // 422 unknown_host for a name no host has; 503 host_unreachable while it is not connected.
    virtual Result<RemoteSpec> remoteFor(const QString &host, const QString &tag,
                                         const QString &provider) const = 0;
};

// Quoted for a POSIX shell: '...' with ' as '\''.
QString shellQuote(const QString &word);
// One value as the wrapper's printf %b reads it back.
QByteArray escapeForPrintf(const QByteArray &value);

// How to reach a started remote command's process group to signal it: the wrapper writes its
// pid (the session leader sshd made it: the group's id) to <runDir>/pid.
struct RemoteSignal {
    QString ssh;
    QStringList arguments; // options, destination, "--"
    QString runDir;

    bool isSet() const { return !ssh.isEmpty(); }
};
// Sends `signal` to that group through another session over the link; does not wait for it.
void signalRemote(const RemoteSignal &target, int signal);

struct RemoteCommand {
    QString program; // ssh
    QStringList arguments;
    QByteArray stdinPreamble;
    RemoteSignal signal;
    QString error; // a shipped file could not be read: nothing starts
};

// The ssh command for `program arguments` in `cwd` on remote.destination, with `environment`'s
// sendEnvironment variables and remote.files in the preamble.
RemoteCommand remoteCommand(const RemoteSpec &remote, const QString &program,
                            const QStringList &arguments, const QString &cwd,
                            const QProcessEnvironment &environment);

} // namespace flotilla
