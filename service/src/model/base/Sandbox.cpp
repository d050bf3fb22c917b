#include "base/Sandbox.h"

#include "base/ChildProcess.h"
#include "base/Logging.h"
#include "protocol/SandboxNames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonValue>
#include <QProcess>
#include <QStandardPaths>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flotilla {

namespace sk = wire::sandbox::key;
namespace scode = wire::sandbox::code;

namespace {

const QString kBwrapNotFound =
    QStringLiteral("bubblewrap (bwrap) was not found in PATH: install it (apt install "
                   "bubblewrap), or start flotillad with --bwrap PATH");

// Mount order at equal depth: a hidden directory first, what is bound back inside it after.
enum class EntryKind { Hidden = 0, Writable = 1, ReadOnly = 2 };

struct Entry {
    QString path;
    EntryKind kind;
    int depth;
};

int depthOf(const QString &path) {
    return int(path.split(QLatin1Char('/'), Qt::SkipEmptyParts).size());
}

struct Run {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QString failure; // set when it did not run to an exit
};

Run runBlocking(const QString &program, const QStringList &arguments, int timeoutMs) {
    QProcess p;
    p.setProgram(program);
    p.setArguments(arguments);
    p.setChildProcessModifier(&prepareChildProcess);
    p.start();
    Run run;
    if (!p.waitForStarted(timeoutMs)) {
        run.failure = p.errorString();
        return run;
    }
    if (!p.waitForFinished(timeoutMs)) {
        signalLaunched(p.processId(), false, SIGKILL);
        p.waitForFinished(1000);
        run.failure = QStringLiteral("%1 did not finish within %2 ms").arg(program).arg(timeoutMs);
        return run;
    }
    run.out = p.readAllStandardOutput();
    run.err = p.readAllStandardError();
    if (p.exitStatus() == QProcess::CrashExit)
        run.failure = QStringLiteral("%1 was killed by signal %2").arg(program).arg(p.exitCode());
    else
        run.exitCode = p.exitCode();
    return run;
}

// bwrap's first line of complaint, and what to do about it.
QString explainFailure(const Run &run) {
    if (!run.failure.isEmpty())
        return run.failure;
    QString line = QString::fromLocal8Bit(run.err).trimmed().section(QLatin1Char('\n'), 0, 0);
    if (line.endsWith(QLatin1Char('.')))
        line.chop(1); // the fix follows after a colon
    if (line.isEmpty())
        line = QStringLiteral("bwrap exited with code %1").arg(run.exitCode);
    QString fix;
    if (line.contains(QLatin1String("namespace"), Qt::CaseInsensitive) ||
        line.contains(QLatin1String("uid map")))
        fix = QStringLiteral(
            "user namespaces are not allowed here (a chroot, a container without them, or "
            "kernel.unprivileged_userns_clone=0 / kernel.apparmor_restrict_unprivileged_userns=1): "
            "enable them, or set the agent's sandbox mode to off");
    else if (line.contains(QLatin1String("Can't mount proc")))
        fix = QStringLiteral("a new /proc cannot be mounted here (systemd's ProtectKernelTunables "
                             "or a masked /proc)");
    else
        fix = QStringLiteral("bubblewrap cannot start a sandbox on this machine: fix that, or set "
                             "the agent's sandbox mode to off");
    return line + QStringLiteral(": ") + fix;
}

QString resolveExecutable(const QString &program, const QProcessEnvironment &environment) {
    if (program.contains(QLatin1Char('/')))
        return program;
    const QStringList path =
        environment.value(QStringLiteral("PATH")).split(QLatin1Char(':'), Qt::SkipEmptyParts);
    // An empty list: QStandardPaths looks in flotillad's own PATH, as QProcess would.
    const QString found = QStandardPaths::findExecutable(program, path);
    return found.isEmpty() ? program : found;
}

Error invalidSandbox(const QString &message) {
    return Error::invalid(scode::InvalidSandbox, message);
}

Status validate(const ProcessSpec &spec) {
    const SandboxSpec &s = spec.sandbox;
    const QFileInfo cwd(spec.cwd);
    if (spec.cwd.isEmpty() || cwd.isRelative() || !cwd.isDir())
        return invalidSandbox(
            QStringLiteral("the sandbox's working directory %1 is not an existing absolute "
                           "directory")
                .arg(spec.cwd));
    auto checkBound = [](const QStringList &paths, const char *what) -> Status {
        for (const QString &path : paths) {
            const QFileInfo info(path);
            if (path.isEmpty() || info.isRelative() || !info.exists())
                return invalidSandbox(
                    QStringLiteral("the sandbox's %1 path %2 is not an existing absolute path")
                        .arg(QLatin1String(what), path));
        }
        return std::nullopt;
    };
    if (Status bad = checkBound(s.writable, "writable"))
        return bad;
    if (Status bad = checkBound(s.readOnly, "read-only"))
        return bad;
    for (const QString &hidden : s.hidden) {
        if (hidden.isEmpty() || QFileInfo(hidden).isRelative())
            return invalidSandbox(
                QStringLiteral("the sandbox's hidden path %1 is not absolute").arg(hidden));
        if (!isPathWithin(spec.cwd, hidden))
            continue;
        // Hidden, unless bound back by a path inside the hidden one (mounted after it).
        const auto boundBack = [&](const QString &bound) {
            return isPathWithin(bound, hidden) && isPathWithin(spec.cwd, bound);
        };
        if (std::none_of(s.writable.begin(), s.writable.end(), boundBack) &&
            std::none_of(s.readOnly.begin(), s.readOnly.end(), boundBack))
            return invalidSandbox(
                QStringLiteral("the sandbox's working directory %1 is hidden (%2)")
                    .arg(spec.cwd, hidden));
    }
    return std::nullopt;
}

// After the mounts: the network namespace, the proxy's socket on the private /tmp, the proxy
// variables, and bash starting the forwarders before it becomes the command ("$@"). It waits
// until every forwarder listens (/proc/net/tcp of the sandbox's own namespace: state 0A), so the
// command's first connection finds them.
QStringList isolatedNetworkArguments(const SandboxNetwork &net, const QString &socat) {
    const QString inside = QStringLiteral("/tmp/.flotilla-net/proxy.sock");
    const QString proxyUrl = QStringLiteral("http://127.0.0.1:%1").arg(kSandboxProxyPort);
    QStringList args{QStringLiteral("--unshare-net"), QStringLiteral("--bind"), net.proxySocket,
                     inside};
    for (const char *name :
         {"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"})
        args << QStringLiteral("--setenv") << QLatin1String(name) << proxyUrl;
    // Everything goes to the proxy, loopback included (a NO_PROXY of the user's would send it
    // nowhere: there is nothing else on this loopback).
    args << QStringLiteral("--unsetenv") << QStringLiteral("NO_PROXY")
         << QStringLiteral("--unsetenv") << QStringLiteral("no_proxy");
    QStringList ports{QString::number(kSandboxProxyPort)};
    QString script =
        QStringLiteral("s='%1'\n"
                       "\"$s\" -lf /dev/null TCP-LISTEN:%2,bind=127.0.0.1,fork,reuseaddr "
                       "UNIX-CONNECT:%3 &\n")
            .arg(socat)
            .arg(kSandboxProxyPort)
            .arg(inside);
    for (const int port : net.tunnelPorts) {
        if (port <= 0 || port > 65535 || port == kSandboxProxyPort)
            continue;
        ports << QString::number(port);
        script += QStringLiteral("\"$s\" -lf /dev/null TCP-LISTEN:%1,bind=127.0.0.1,fork,reuseaddr "
                                 "PROXY:127.0.0.1:127.0.0.1:%1,proxyport=%2 &\n")
                      .arg(port)
                      .arg(kSandboxProxyPort);
    }
    // Concatenated, not arg(): printf's %04X is no place marker.
    script += QStringLiteral("i=0\n"
                             "while [ $i -lt 500 ]; do\n"
                             "  ok=1\n"
                             "  for p in ") +
              ports.join(QLatin1Char(' ')) +
              QStringLiteral("; do\n"
                             "    grep -qi \":$(printf %04X \"$p\") 00000000:0000 0A\" "
                             "/proc/net/tcp || ok=0\n"
                             "  done\n"
                             "  [ $ok = 1 ] && break\n"
                             "  i=$((i+1)); sleep 0.01\n"
                             "done\n"
                             "unset s i ok p\n"
                             "exec \"$@\"\n");
    args << QStringLiteral("--") << QStringLiteral("/bin/bash") << QStringLiteral("-c") << script
         << QStringLiteral("flotilla-net");
    return args;
}

} // namespace

bool isPathWithin(const QString &path, const QString &dir) {
    if (dir.isEmpty())
        return false;
    if (dir == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path == dir || path.startsWith(dir + QLatin1Char('/'));
}

QJsonObject SandboxSupport::toJson() const {
    return QJsonObject{
        {sk::Available, usable},
        {sk::NetworkIsolation, networkIsolation},
        {sk::Bwrap, bwrap},
        {sk::Version, version},
        {sk::Socat, socat.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(socat)},
        {sk::Reason, reason.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(reason)},
        {sk::NetworkReason,
         networkReason.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(networkReason)},
    };
}

QStringList bwrapArguments(const SandboxSpec &spec, const QString &cwd, const QString &emptyFile) {
    QStringList args{
        QStringLiteral("--unshare-user"),
        QStringLiteral("--unshare-pid"),
        QStringLiteral("--unshare-ipc"),
        QStringLiteral("--die-with-parent"),
        QStringLiteral("--new-session"),
        QStringLiteral("--cap-drop"),
        QStringLiteral("ALL"),
        QStringLiteral("--ro-bind"),
        QStringLiteral("/"),
        QStringLiteral("/"),
        QStringLiteral("--dev"),
        QStringLiteral("/dev"),
        QStringLiteral("--proc"),
        QStringLiteral("/proc"),
        QStringLiteral("--tmpfs"),
        QStringLiteral("/tmp"),
        QStringLiteral("--tmpfs"),
        QStringLiteral("/dev/shm"),
    };

    // Shallow first: a path bound or hidden inside another must be mounted after it, or the
    // outer mount covers it. At equal depth hidden, then writable, then read-only.
    QList<Entry> entries;
    for (const QString &p : spec.hidden)
        entries.append({p, EntryKind::Hidden, depthOf(p)});
    for (const QString &p : spec.writable)
        entries.append({p, EntryKind::Writable, depthOf(p)});
    for (const QString &p : spec.readOnly)
        entries.append({p, EntryKind::ReadOnly, depthOf(p)});
    std::stable_sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return a.depth != b.depth ? a.depth < b.depth : int(a.kind) < int(b.kind);
    });
    for (const Entry &e : entries) {
        switch (e.kind) {
        case EntryKind::Hidden: {
            const QFileInfo info(e.path);
            if (info.isDir())
                args << QStringLiteral("--tmpfs") << e.path;
            else if (info.exists()) // a file, a socket: an empty read-only file in its place
                args << QStringLiteral("--ro-bind") << emptyFile << e.path;
            break; // missing: nothing to hide (bwrap could not mount over it anyway)
        }
        case EntryKind::Writable:
            args << QStringLiteral("--bind") << e.path << e.path;
            break;
        case EntryKind::ReadOnly:
            args << QStringLiteral("--ro-bind") << e.path << e.path;
            break;
        }
    }

    args << QStringLiteral("--chdir") << cwd;
    QStringList keys = spec.setEnvironment.keys();
    keys.sort();
    for (const QString &key : keys)
        args << QStringLiteral("--setenv") << key << spec.setEnvironment.value(key);
    for (const QString &key : spec.unsetEnvironment)
        args << QStringLiteral("--unsetenv") << key;
    return args;
}

SandboxSupport probeSandbox(const QString &bwrapProgram, int timeoutMs,
                            const QString &socatProgram) {
    SandboxSupport support;
    if (bwrapProgram.contains(QLatin1Char('/'))) {
        const QFileInfo info(bwrapProgram);
        if (info.isFile() && info.isExecutable())
            support.bwrap = info.absoluteFilePath();
    } else if (!bwrapProgram.isEmpty()) {
        support.bwrap = QStandardPaths::findExecutable(bwrapProgram);
    }
    if (support.bwrap.isEmpty()) {
        support.reason = kBwrapNotFound;
        return support;
    }

    const Run version = runBlocking(support.bwrap, {QStringLiteral("--version")}, timeoutMs);
    if (version.failure.isEmpty() && version.exitCode == 0)
        support.version = QString::fromLocal8Bit(version.out).trimmed();

    // Exactly the base every sandbox has, around a command that does nothing.
    QStringList base = bwrapArguments(SandboxSpec{}, QStringLiteral("/"), QString());
    base << QStringLiteral("--") << QStringLiteral("/bin/true");
    const Run plain = runBlocking(support.bwrap, base, timeoutMs);
    if (!plain.failure.isEmpty() || plain.exitCode != 0) {
        support.reason = explainFailure(plain);
        const QString err = QString::fromLocal8Bit(plain.err);
        support.namespacesBlocked = err.contains(QLatin1String("namespace"), Qt::CaseInsensitive) ||
                                    err.contains(QLatin1String("uid map"));
        return support;
    }
    support.usable = true;

    base.prepend(QStringLiteral("--unshare-net"));
    const Run net = runBlocking(support.bwrap, base, timeoutMs);
    support.socat = socatProgram.contains(QLatin1Char('/'))
                        ? (QFileInfo(socatProgram).isExecutable() ? socatProgram : QString())
                        : QStandardPaths::findExecutable(socatProgram);
    if (!net.failure.isEmpty() || net.exitCode != 0)
        support.networkReason = explainFailure(net);
    else if (support.socat.isEmpty())
        support.networkReason = QStringLiteral("socat was not found in PATH: install it (apt "
                                               "install socat)");
    else if (support.socat.contains(QLatin1Char('\'')))
        support.networkReason = QStringLiteral("socat's path %1 holds a quote").arg(support.socat);
    support.networkIsolation = support.networkReason.isEmpty();
    if (!support.networkIsolation)
        qCInfo(lcSandbox).noquote()
            << "sandboxes cannot have a network of their own here:" << support.networkReason;
    return support;
}

ProcessLauncher::ProcessLauncher(SandboxSupport support, QString emptyFile)
    : m_support(std::move(support))
    , m_emptyFile(std::move(emptyFile)) {
    if (m_emptyFile.isEmpty())
        return;
    const QFileInfo info(m_emptyFile);
    if (info.isFile() && info.size() == 0)
        return;
    if (info.isFile()) // written to: a hidden file must read as empty
        QFile::remove(m_emptyFile);
    const QString dir = info.absolutePath();
    if (!QFileInfo::exists(dir) && QDir().mkpath(dir))
        QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                       QFileDevice::ExeOwner);
    const QByteArray path = QFile::encodeName(m_emptyFile);
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0 || ::fchmod(fd, 0444) != 0) // 0444 whatever the umask: read by any sandbox user
        qCWarning(lcSandbox).noquote() << "cannot create the sandbox's empty file" << m_emptyFile
                                       << ":" << qt_error_string(errno);
    if (fd >= 0)
        ::close(fd);
}

Result<LaunchPlan> ProcessLauncher::plan(const ProcessSpec &spec) const {
    LaunchPlan plan;
    plan.cwd = spec.cwd;
    plan.environment = spec.environment;
    plan.displayProgram = spec.program;
    if (spec.remote.isRemote()) {
        if (spec.sandbox.enabled)
            return Error{ErrorKind::Unavailable, scode::SandboxUnavailable,
                         QStringLiteral("a sandbox on another host is not built yet: set the "
                                        "agent's sandbox mode to off")};
        RemoteCommand command =
            remoteCommand(spec.remote, spec.program, spec.arguments, spec.cwd, spec.environment);
        if (!command.error.isEmpty())
            return Error::internal(wire::code::Internal, command.error);
        plan.program = command.program;
        plan.arguments = command.arguments;
        plan.stdinPreamble = command.stdinPreamble;
        plan.remoteSignal = command.signal;
        plan.remote = true;
        // ssh itself starts here, in a directory that exists (the cwd is the remote's).
        plan.cwd = QDir::rootPath();
        return plan;
    }
    if (!spec.sandbox.enabled) {
        plan.program = spec.program;
        plan.arguments = spec.arguments;
        return plan;
    }
    if (!m_support.usable)
        return Error{ErrorKind::Unavailable, scode::SandboxUnavailable,
                     QStringLiteral("cannot start a sandbox: ") + m_support.reason};
    if (Status bad = validate(spec))
        return *bad;
    const SandboxNetwork &net = spec.sandbox.network;
    if (net.isolated && !m_support.networkIsolation)
        return Error{ErrorKind::Unavailable, scode::SandboxUnavailable,
                     QStringLiteral("cannot give the sandbox a network of its own: ") +
                         m_support.networkReason};
    if (net.isolated && !QFileInfo::exists(net.proxySocket))
        return Error{
            ErrorKind::Unavailable, scode::SandboxUnavailable,
            QStringLiteral("the sandbox's egress proxy %1 is not there").arg(net.proxySocket)};
    plan.program = m_support.bwrap;
    plan.arguments = bwrapArguments(spec.sandbox, spec.cwd, m_emptyFile);
    // bwrap execvp()s the command inside; resolved here in the spec's PATH, as QProcess would.
    const QString program = resolveExecutable(spec.program, spec.environment);
    if (net.isolated)
        plan.arguments << isolatedNetworkArguments(net, m_support.socat) << program;
    else
        plan.arguments << QStringLiteral("--") << program;
    plan.arguments << spec.arguments;
    plan.sandboxed = true;
    return plan;
}

} // namespace flotilla
