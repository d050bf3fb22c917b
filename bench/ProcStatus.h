#pragma once
// Figures of processes from /proc for the agent benchmarks (bench_remote): each process' name,
// parent, owner and VmRSS, a process tree, a command line, the proportional set size and the CPU
// time used. Header-only; Linux only.

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QList>

namespace flotilla::bench {

// /proc/<pid>/status: what the memory figures need.
struct Proc {
    QByteArray name;
    qint64 ppid = 0;
    uint uid = 0;
    double rssMiB = 0;
};

inline QHash<qint64, Proc> snapshot() {
    QHash<qint64, Proc> out;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        QFile f(QStringLiteral("/proc/%1/status").arg(pid));
        if (!ok || !f.open(QIODevice::ReadOnly))
            continue;
        Proc p;
        for (const QByteArray &line : f.readAll().split('\n')) {
            const QByteArray value = line.mid(line.indexOf(':') + 1).trimmed();
            if (line.startsWith("Name:"))
                p.name = value;
            else if (line.startsWith("PPid:"))
                p.ppid = value.toLongLong();
            else if (line.startsWith("Uid:"))
                p.uid = value.split('\t').value(0).toUInt();
            else if (line.startsWith("VmRSS:"))
                p.rssMiB = value.split(' ').value(0).toDouble() / 1024.0;
        }
        out.insert(pid, p);
    }
    return out;
}

// `root` and every process below it, root first.
inline QList<qint64> subtree(const QHash<qint64, Proc> &all, qint64 root) {
    QList<qint64> tree{root};
    for (int i = 0; i < tree.size(); ++i) {
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            if (it->ppid == tree.at(i))
                tree.append(it.key());
        }
    }
    return tree;
}

inline QList<QByteArray> commandLine(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
    return f.open(QIODevice::ReadOnly) ? f.readAll().split('\0') : QList<QByteArray>();
}

// Proportional set size: RSS with each shared page divided among the processes that map it,
// so what one more such process costs (root can read any process' smaps_rollup).
inline double pssMiB(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/smaps_rollup").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("Pss:"))
            return line.mid(4).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return 0;
}

// CPU time all the process' threads have used so far, ms (its children not included), from each
// thread's schedstat (ns; /proc/<pid>/stat counts in clock ticks of 10 ms).
inline double cpuMs(qint64 pid) {
    double ns = 0;
    const QString tasks = QStringLiteral("/proc/%1/task").arg(pid);
    for (const QString &tid : QDir(tasks).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile f(tasks + QLatin1Char('/') + tid + QStringLiteral("/schedstat"));
        if (f.open(QIODevice::ReadOnly))
            ns += f.readAll().split(' ').value(0).toDouble();
    }
    return ns / 1e6;
}

} // namespace flotilla::bench
