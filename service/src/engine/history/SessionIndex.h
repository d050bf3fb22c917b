#pragma once
// The index of one session file: where each conversation line starts, how long it is and how
// many entries come before it. 16 bytes per conversation line; lines that yield no entry
// (attachments, api-request records, queue operations... most of the bytes) cost nothing.
//
// Built once by streaming the file in 4 MiB chunks (memchr for '\n', then the file's LineFormat,
// which validates and counts entries without building JSON), then extended incrementally: the CLI
// appends while it runs. A partial last line (no '\n' yet) is left for the next refresh. A file
// that shrank, was replaced (other inode) or whose indexed tail bytes changed is re-indexed.
// A page then costs a binary search plus reading only its own lines (pread), whatever the size.
//
// Thread-safe: every public function locks; callers are the history worker threads.

#include "base/Error.h"
#include "history/LineScanner.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QMutex>
#include <QString>

#include <atomic>
#include <functional>
#include <vector>

namespace flotilla::history {

class PosixFile;

class SessionIndex final {
    Q_DISABLE_COPY_MOVE(SessionIndex)
public:
    // Lines longer than this are skipped and counted as broken (bounds the scan buffer).
    static constexpr qint64 kMaxLineBytes = 32 * 1024 * 1024;

    // includeSidechain: false for a session file (its sub-agent lines are not the
    // conversation), true for a sub-agent's own transcript (all its lines are sidechain lines).
    // lineFormat: which CLI wrote the file (how its lines are scanned; SessionSource::format()).
    SessionIndex(QString path, bool includeSidechain, LineFormat lineFormat);
    ~SessionIndex();

    struct Stats {
        qint64 entries = 0;      // conversation entries in the indexed part
        qint64 skippedLines = 0; // broken lines: invalid JSON, or over kMaxLineBytes
        qint64 indexedBytes = 0; // up to the end of the last complete line
        qint64 fileSize = 0;
    };
    struct Range {
        Stats stats;
        qint64 first = 0;           // ordinal of entries[0] (0 = oldest entry)
        QList<QJsonObject> entries; // oldest first
        qint64 bytesRead = 0;
    };
    struct LineView {
        qint64 firstEntry; // ordinal of the line's first entry
        const char *b;
        const char *e;
    };

    // Brings the index up to date with the file (NotFound if it is gone).
    Result<Stats> refresh();
    // The page `limit` entries long ending `offsetFromNewest` entries before the newest one.
    Result<Range> page(qint64 offsetFromNewest, qint64 limit);
    // The oldest `count` entries.
    Result<Range> head(qint64 count);
    // Refreshes, then hands every conversation line to `visit` in file order (reads are
    // coalesced, the big non-conversation lines between them skipped). `visit` returns false to
    // stop. *bytesRead: what was read from the file.
    Result<Stats> forEachLine(const std::function<bool(const LineView &)> &visit,
                              qint64 *bytesRead);

    const QString &path() const { return m_path; }
    LineFormat format() const { return m_format; }
    qint64 memoryBytes() const { return m_memory.load(std::memory_order_relaxed); }
    // Work done so far (tests and the bench prove growth is handled incrementally with these).
    int builds() const { return m_builds.load(std::memory_order_relaxed); }
    qint64 bytesScanned() const { return m_bytesScanned.load(std::memory_order_relaxed); }

private:
    struct LineRef {
        qint64 offset;
        quint32 length;
        quint32 entriesBefore;
    };
    static_assert(sizeof(LineRef) == 16);

    Result<Stats> refreshLocked(PosixFile &file);
    void reset();
    bool scan(PosixFile &file, qint64 from, qint64 to);
    void addLine(const char *b, qsizetype len, qint64 offset);
    QByteArray readGuard(PosixFile &file) const;
    qint64 entriesIn(size_t line) const;
    Result<Range> readRangeLocked(PosixFile &file, qint64 first, qint64 count);
    // Reads lines[0, count) in coalesced chunks and calls fn(i, bytes, length) until it returns
    // false. False on a read error.
    static bool readLines(PosixFile &file, const LineRef *lines, size_t count, qint64 *bytesRead,
                          const std::function<bool(size_t, const char *, qsizetype)> &fn);
    Stats statsLocked() const;

    const QString m_path;
    const bool m_includeSidechain;
    const LineFormat m_format;
    mutable QMutex m_mutex;
    std::vector<LineRef> m_lines;
    qint64 m_entries = 0;
    qint64 m_skipped = 0;
    qint64 m_indexedBytes = 0;
    // What the file looked like at the last refresh.
    bool m_built = false;
    qint64 m_fileSize = -1;
    qint64 m_mtimeNs = 0;
    quint64 m_device = 0;
    quint64 m_inode = 0;
    QByteArray m_guard; // the last bytes before m_indexedBytes: an in-place rewrite changes them
    ScannedLine m_scratch;
    std::atomic<qint64> m_memory{0};
    std::atomic<int> m_builds{0};
    std::atomic<qint64> m_bytesScanned{0};
};

} // namespace flotilla::history
