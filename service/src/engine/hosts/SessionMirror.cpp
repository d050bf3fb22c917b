#include "hosts/SessionMirror.h"

#include "base/RemoteLaunch.h"
#include "hosts/HostsLogging.h"
#include "protocol/WireNames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMutex>
#include <QProcess>

namespace flotilla {

namespace {
constexpr qsizetype kOverlap = 64;
constexpr int kListTimeoutMs = 30000;
constexpr int kFetchTimeoutMs = 300000;

// Two requests for the same agent may sync at once: one at a time writes the copies.
QMutex &mirrorLock() {
    static QMutex lock;
    return lock;
}

Result<QByteArray> runThere(const MirrorTarget &t, const QString &command, int timeoutMs) {
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(t.ssh, QStringList(t.sshOptions) << t.destination << QStringLiteral("--") << command);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(1000);
        return Error{ErrorKind::Unavailable, wire::code::Internal,
                     QStringLiteral("reading the host's session files timed out")};
    }
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return Error{ErrorKind::Unavailable, wire::code::Internal,
                     QStringLiteral("reading the host's session files failed: %1")
                         .arg(QString::fromUtf8(p.readAllStandardError()).trimmed().left(300))};
    return p.readAllStandardOutput();
}

// A remote path as find printed it (relative to the home): no way out of the copy.
bool isSafeRelative(const QString &path) {
    return !path.isEmpty() && !path.startsWith(QLatin1Char('/')) &&
           !path.split(QLatin1Char('/')).contains(QStringLiteral(".."));
}

// Fetches the bytes of `path` from `from` to `size` and puts them in `local` (appending after a
// verified overlap, or whole).
Status fetch(const MirrorTarget &t, const QString &path, qint64 size, const QString &local,
             MirrorStats &stats) {
    QFile copy(local);
    const qint64 have = copy.exists() ? copy.size() : 0;
    qint64 from = 0;
    QByteArray tail;
    if (have > 0 && have <= size) {
        from = qMax<qint64>(0, have - kOverlap);
        if (copy.open(QIODevice::ReadOnly)) {
            copy.seek(from);
            tail = copy.read(have - from);
            copy.close();
        }
    }
    const QString command = QStringLiteral("tail -c +%1 %2 | head -c %3")
                                .arg(from + 1)
                                .arg(shellQuote(path))
                                .arg(size - from);
    auto bytes = runThere(t, command, kFetchTimeoutMs);
    if (!bytes)
        return bytes.error();
    stats.bytesFetched += bytes->size();
    ++stats.fetched;
    QDir().mkpath(QFileInfo(local).absolutePath());
    if (from > 0 && bytes->startsWith(tail)) {
        if (!copy.open(QIODevice::WriteOnly | QIODevice::Append))
            return Error::internal(wire::code::Internal, copy.errorString());
        copy.write(bytes->constData() + tail.size(), bytes->size() - tail.size());
        return std::nullopt;
    }
    if (from > 0) { // rewritten under us: fetch it whole
        QFile::remove(local);
        return fetch(t, path, size, local, stats);
    }
    if (!copy.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return Error::internal(wire::code::Internal, copy.errorString());
    copy.write(*bytes);
    return std::nullopt;
}
} // namespace

Result<MirrorStats> syncSessions(const MirrorTarget &target,
                                 const QList<Provider::SessionLocation> &locations) {
    QMutexLocker locked(&mirrorLock());
    MirrorStats stats;
    QStringList finds;
    for (const Provider::SessionLocation &l : locations)
        finds << QStringLiteral("find %1 -maxdepth %2 -type f -name %3 -printf '%s %p\\n'")
                     .arg(shellQuote(l.dir))
                     .arg(l.maxDepth)
                     .arg(shellQuote(l.pattern));
    // A location that does not exist yet (no session there) lists nothing.
    const QString command =
        QStringLiteral("cd && { %1; } 2>/dev/null; true").arg(finds.join(QStringLiteral("; ")));
    auto listing = runThere(target, command, kListTimeoutMs);
    if (!listing)
        return listing.error();
    for (const QByteArray &line : listing->split('\n')) {
        const qsizetype space = line.indexOf(' ');
        if (space <= 0)
            continue;
        bool ok = false;
        const qint64 size = line.left(space).toLongLong(&ok);
        const QString path = QString::fromUtf8(line.mid(space + 1));
        if (!ok || !isSafeRelative(path))
            continue;
        ++stats.files;
        const QString local = target.mirrorHome + QLatin1Char('/') + path;
        if (QFileInfo(local).size() == size && QFileInfo::exists(local))
            continue;
        if (Status e = fetch(target, path, size, local, stats))
            qCWarning(lcHosts).noquote() << "session copy of" << path << "failed:" << e->message;
    }
    return stats;
}

} // namespace flotilla
