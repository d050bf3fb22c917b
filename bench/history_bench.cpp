// History paging and search on a big session file (make one with make_session_file.py).
// Runs the very functions the HistoryController's workers run (history::history,
// history::search), including JSON serialisation of the answer; HTTP adds its usual ~0.1 ms.
//
//   bench_history FILE.jsonl [repeats=5] [results.json]
//
// cold-disk: new index, file evicted from the page cache first (posix_fadvise DONTNEED)
// cold-index: new index, file in the page cache
// warm: index built, the page asked again (what a client paging through a session sees)

#include "agents/claude/ClaudeSessions.h"
#include "history/HistoryService.h"
#include "history/IndexCache.h"
#include "history/SessionIndex.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>

#include <fcntl.h>
#include <unistd.h>

using namespace flotilla::history;

namespace {

QString s(const char *utf8) {
    return QString::fromUtf8(utf8);
}

// kB from /proc/self/status ("VmRSS", "VmHWM").
qint64 procStatusKb(const char *field) {
    QFile f(s("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field)) + 1)
                .trimmed()
                .split(' ')
                .value(0)
                .toLongLong();
    }
    return -1;
}

// Drops the file's clean pages from the page cache (no root needed).
void evictFromPageCache(const QString &path) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY);
    if (fd < 0)
        return;
    ::fdatasync(fd);
    ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(fd);
}

struct Series {
    QList<double> ms;
    void add(double v) { ms.append(v); }
    QJsonObject json() const {
        QList<double> v = ms;
        std::sort(v.begin(), v.end());
        const double median = v.isEmpty() ? 0 : v[v.size() / 2];
        return {{s("min"), v.value(0)},
                {s("median"), median},
                {s("max"), v.value(v.size() - 1)},
                {s("n"), int(v.size())}};
    }
    QString text() const {
        const QJsonObject o = json();
        return s("%1 / %2 / %3 ms")
            .arg(o.value(s("min")).toDouble(), 0, 'f', 3)
            .arg(o.value(s("median")).toDouble(), 0, 'f', 3)
            .arg(o.value(s("max")).toDouble(), 0, 'f', 3);
    }
};

double msSince(const QElapsedTimer &t) {
    return double(t.nsecsElapsed()) / 1e6;
}

// A history request for `file`, the way the controller builds it (session picked by id).
HistoryRequest pageRequest(const QString &file, qint64 offset) {
    HistoryRequest r;
    r.session.source = flotilla::claude::sessionsIn({QFileInfo(file).absolutePath()});
    r.session.requestedSessionId = QFileInfo(file).completeBaseName();
    r.offset = offset;
    r.limit = 50;
    return r;
}

// One page, serialised as the worker does; returns totalCount.
qint64 servePage(IndexCache &cache, const HistoryRequest &r) {
    const auto page = history(cache, r);
    if (!page) {
        std::fprintf(stderr, "error: %s\n", qPrintable(page.error().message));
        std::exit(1);
    }
    const QByteArray body = QJsonDocument(*page).toJson(QJsonDocument::Compact);
    if (page->value(s("messages")).toArray().size() != 50 && r.offset == 0)
        std::fprintf(stderr, "warning: short page (%lld bytes)\n",
                     static_cast<long long>(body.size()));
    return page->value(s("totalCount")).toInteger();
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() < 2) {
        std::fprintf(stderr, "usage: bench_history FILE.jsonl [repeats=5] [results.json]\n");
        return 2;
    }
    const QString file = QFileInfo(args[1]).absoluteFilePath();
    const int repeats = args.size() > 2 ? args[2].toInt() : 5;
    const qint64 size = QFileInfo(file).size();
    QJsonObject out{{s("file"), file},
                    {s("bytes"), size},
                    {s("repeats"), repeats},
                    {s("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
    const qint64 rssStart = procStatusKb("VmRSS:");

    // Cold: a new cache (so a new index) per run.
    Series coldDisk, coldIndex;
    qint64 total = 0;
    for (int i = 0; i < repeats; ++i) {
        evictFromPageCache(file);
        IndexCache cache;
        QElapsedTimer t;
        t.start();
        total = servePage(cache, pageRequest(file, 0));
        coldDisk.add(msSince(t));
    }
    for (int i = 0; i < repeats; ++i) {
        IndexCache cache;
        QElapsedTimer t;
        t.start();
        servePage(cache, pageRequest(file, 0));
        coldIndex.add(msSince(t));
    }

    // Warm: one cache, the same index; newest page, a middle page, the oldest page.
    IndexCache cache;
    servePage(cache, pageRequest(file, 0));
    const auto index = cache.peek(file);
    const qint64 indexBytes = index->memoryBytes();
    Series warmNewest, warmMiddle, warmOldest;
    const int warmRuns = std::max(50, repeats * 20);
    for (int i = 0; i < warmRuns; ++i) {
        for (auto [series, offset] :
             {std::pair{&warmNewest, qint64(0)}, std::pair{&warmMiddle, total / 2},
              std::pair{&warmOldest, std::max<qint64>(0, total - 50)}}) {
            QElapsedTimer t;
            t.start();
            servePage(cache, pageRequest(file, offset));
            series->add(msSince(t));
        }
    }

    // Growth: the CLI appends 1 MiB; the next page pays for those bytes only.
    Series growth;
    qint64 grownScanned = 0;
    {
        QFile f(file);
        f.open(QIODevice::ReadOnly);
        QByteArray head = f.read(1 << 20);
        head.truncate(head.lastIndexOf('\n') + 1);
        f.close();
        for (int i = 0; i < repeats; ++i) {
            QFile a(file);
            a.open(QIODevice::Append);
            a.write(head);
            a.close();
            const qint64 before = index->bytesScanned();
            QElapsedTimer t;
            t.start();
            servePage(cache, pageRequest(file, 0));
            growth.add(msSince(t));
            grownScanned = index->bytesScanned() - before;
        }
        if (index->builds() != 1)
            std::fprintf(stderr, "warning: growth rebuilt the index\n");
        QFile::resize(file, size); // leave the file as it was
    }

    // Search: streams the whole file through the index, bounded buffers.
    QJsonObject searches;
    for (const char *q : {"zq-not-there", "résumé naïve", "\"quoted\" back"}) {
        IndexCache searchCache;
        servePage(searchCache, pageRequest(file, 0)); // index built: measure the scan itself
        Series runs;
        qint64 matches = 0, scanned = 0;
        for (int i = 0; i < repeats; ++i) {
            SearchRequest r;
            r.session = pageRequest(file, 0).session;
            r.query = QString::fromUtf8(q);
            QElapsedTimer t;
            t.start();
            const auto res = search(searchCache, r);
            runs.add(msSince(t));
            matches = res->value(s("totalMatches")).toInteger();
            scanned = res->value(s("scannedBytes")).toInteger();
        }
        QJsonObject o = runs.json();
        o.insert(s("totalMatches"), matches);
        o.insert(s("scannedBytes"), scanned);
        o.insert(s("fileMiBPerSecondMedian"),
                 double(size) / (1 << 20) / (o.value(s("median")).toDouble() / 1000));
        searches.insert(QString::fromUtf8(q), o);
        std::printf("search %-16s %s  matches %lld  scanned %.1f MiB\n", q, qPrintable(runs.text()),
                    static_cast<long long>(matches), double(scanned) / (1 << 20));
    }

    const qint64 hwm = procStatusKb("VmHWM:");
    out.insert(s("totalCount"), total);
    out.insert(s("coldDiskFirstPage"), coldDisk.json());
    out.insert(s("coldIndexFirstPage"), coldIndex.json());
    out.insert(s("warmNewestPage"), warmNewest.json());
    out.insert(s("warmMiddlePage"), warmMiddle.json());
    out.insert(s("warmOldestPage"), warmOldest.json());
    out.insert(s("append1MiBThenPage"), growth.json());
    out.insert(s("append1MiBScannedBytes"), grownScanned);
    out.insert(s("search"), searches);
    out.insert(s("indexBytes"), indexBytes);
    out.insert(s("rssStartKiB"), rssStart);
    out.insert(s("peakRssKiB"), hwm);
    out.insert(s("peakRssOverStartKiB"), hwm - rssStart);

    std::printf("file %s: %.1f MiB, %lld entries, index %.2f MiB\n", qPrintable(file),
                double(size) / (1 << 20), static_cast<long long>(total),
                double(indexBytes) / (1 << 20));
    std::printf("cold disk  (first page)   %s\n", qPrintable(coldDisk.text()));
    std::printf("cold index (first page)   %s\n", qPrintable(coldIndex.text()));
    std::printf("warm newest page          %s\n", qPrintable(warmNewest.text()));
    std::printf("warm middle page          %s\n", qPrintable(warmMiddle.text()));
    std::printf("warm oldest page          %s\n", qPrintable(warmOldest.text()));
    std::printf("append 1 MiB, then page   %s (scanned %lld bytes)\n", qPrintable(growth.text()),
                static_cast<long long>(grownScanned));
    std::printf("RSS: start %lld KiB, peak %lld KiB (+%lld)\n", static_cast<long long>(rssStart),
                static_cast<long long>(hwm), static_cast<long long>(hwm - rssStart));
    if (args.size() > 3) {
        QFile f(args[3]);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
            return 1;
        f.write(QJsonDocument(out).toJson());
    }
    return 0;
}
