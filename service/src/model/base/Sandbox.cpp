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

// `path` is `dir` or below it. Both absolute and clean.
bool isInside(const QString &path, const QString &dir) {
    if (dir == QLatin1String("/"))
        return path.startsWith(QLatin1Char('/'));
    return path == dir || path.startsWith(dir + QLatin1Char('/'));
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
        if (!isInside(spec.cwd, hidden))
            continue;
        // Hidden, unless bound back by a path inside the hidden one (mounted after it).
        const auto boundBack = [&](const QString &bound) {
            return isInside(bound, hidden) && isInside(spec.cwd, bound);
        };
        if (std::none_of(s.writable.begin(), s.writable.end(), boundBack) &&
            std::none_of(s.readOnly.begin(), s.readOnly.end(), boundBack))
            return invalidSandbox(
                QStringLiteral("the sandbox's working directory %1 is hidden (%2)")
                    .arg(spec.cwd, hidden));
    }
    return std::nullopt;
}

} // namespace

QJsonObject SandboxSupport::toJson() const {
    return QJsonObject{
        {sk::Available, usable},
        {sk::NetworkIsolation, networkIsolation},
        {sk::Bwrap, bwrap},
        {sk::Version, version},
        {sk::Reason, reason.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(reason)},
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

SandboxSupport probeSandbox(const QString &bwrapProgram, int timeoutMs) {
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
        return support;
    }
    support.usable = true;

    base.prepend(QStringLiteral("--unshare-net"));
    const Run net = runBlocking(support.bwrap, base, timeoutMs);
    support.networkIsolation = net.failure.isEmpty() && net.exitCode == 0;
    if (!support.networkIsolation)
        qCInfo(lcSandbox).noquote()
            << "sandboxes cannot have their own network here:" << explainFailure(net);
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
    plan.program = m_support.bwrap;
    plan.arguments = bwrapArguments(spec.sandbox, spec.cwd, m_emptyFile);
    // bwrap execvp()s the command inside; resolved here in the spec's PATH, as QProcess would.
    plan.arguments << QStringLiteral("--") << resolveExecutable(spec.program, spec.environment)
                   << spec.arguments;
    plan.sandboxed = true;
    return plan;
}

} // namespace flotilla
