#pragma once
// What the agent benchmarks share (bench_first_delta, bench_idle): min / median / max of repeated
// figures, and the resident memory of a process tree read from /proc. Header-only.

#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonObject>
#include <QList>

#include <algorithm>
#include <cstdio>

namespace flotilla::bench {

struct Stats {
    double min = 0, median = 0, max = 0;
};

inline Stats stats(QList<double> v) {
    std::sort(v.begin(), v.end());
    if (v.isEmpty())
        return {};
    return {v.first(), v.at(v.size() / 2), v.last()};
}

inline QJsonObject toJson(const Stats &s) {
    return {{QStringLiteral("min"), s.min},
            {QStringLiteral("median"), s.median},
            {QStringLiteral("max"), s.max}};
}

// The machine's load when a run starts and ends, for the report (/proc/loadavg).
inline QByteArray loadavg() {
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

// Prints "label  min / median / max unit" (label padded to `width`, `decimals` places) and returns
// the figures as JSON.
inline QJsonObject report(const QString &label, const QList<double> &v, const char *unit,
                          int width = 32, int decimals = 1) {
    const Stats s = stats(v);
    std::printf("  %-*s %8.*f / %8.*f / %8.*f %s\n", width, qPrintable(label), decimals, s.min,
                decimals, s.median, decimals, s.max, unit);
    return toJson(s);
}

// /proc/<pid>/stat of every process: its parent and its RSS.
struct ProcInfo {
    qint64 ppid = 0;
    qint64 rssKiB = 0;
};

inline QHash<qint64, ProcInfo> processes() {
    QHash<qint64, ProcInfo> out;
    const long pageKiB = 4;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        if (!ok)
            continue;
        QFile f(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        const QByteArray stat = f.readAll();
        const QList<QByteArray> fields = stat.mid(stat.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 22)
            continue;
        out.insert(pid, {fields[1].toLongLong(), fields[21].toLongLong() * pageKiB});
    }
    return out;
}

// RSS of `root` and everything below it; `count` gets the number of processes.
inline qint64 treeRssKiB(const QHash<qint64, ProcInfo> &all, qint64 root, int *count = nullptr) {
    qint64 total = 0;
    int n = 0;
    QList<qint64> todo{root};
    while (!todo.isEmpty()) {
        const qint64 pid = todo.takeLast();
        total += all.value(pid).rssKiB;
        ++n;
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            if (it->ppid == pid)
                todo.append(it.key());
        }
    }
    if (count)
        *count = n;
    return total;
}

} // namespace flotilla::bench
