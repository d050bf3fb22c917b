#pragma once
// Small helpers shared by the crash, fault and soak suites: environment knobs, the file
// descriptor limit, and what /proc says about a process.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QString>
#include <QtGlobal>

#include <sys/resource.h>

namespace flotilla::test {

// An integer from the environment, or `fallback` when unset or malformed.
inline int envInt(const char *name, int fallback) {
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok ? v : fallback;
}

inline bool envFlag(const char *name) {
    return qEnvironmentVariableIntValue(name) != 0;
}

// FLOTILLA_TEST_TIMEOUT_SCALE (default 1): slower builds (sanitizers) stretch every deadline.
inline int scaled(int ms) {
    return ms * qMax(1, envInt("FLOTILLA_TEST_TIMEOUT_SCALE", 1));
}

// Raises the soft RLIMIT_NOFILE to the hard limit (children inherit it). Returns the new soft
// limit.
inline qint64 raiseFdLimit() {
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) != 0)
        return -1;
    if (files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
        ::getrlimit(RLIMIT_NOFILE, &files);
    }
    return qint64(files.rlim_cur);
}

// VmRSS of a process in KiB (-1 when unknown).
inline qint64 rssKiB(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    const QList<QByteArray> lines = f.readAll().split('\n');
    for (const QByteArray &line : lines) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').constFirst().toLongLong();
    }
    return -1;
}

// Open file descriptors of a process (-1 when unknown).
inline int fdCount(qint64 pid) {
    const QDir dir(QStringLiteral("/proc/%1/fd").arg(pid));
    if (!dir.exists())
        return -1;
    return int(dir.entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System).size());
}

} // namespace flotilla::test
