#include "history/SessionIndex.h"

#include "history/HistoryEntries.h"
#include "history/HistoryLog.h"
#include "protocol/WireNames.h"

#include <QFile>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

Q_LOGGING_CATEGORY(lcHistory, "flotilla.history")

namespace flotilla::history {

namespace {
constexpr qsizetype kChunkBytes = 4 * 1024 * 1024; // scan buffer; grows only for longer lines
constexpr qint64 kGuardBytes = 64;
// Page and search reads: lines closer than kMaxGap are read together, up to kWindow at a time.
constexpr qint64 kMaxGap = 64 * 1024;
constexpr qint64 kWindow = 4 * 1024 * 1024;
// Search copies line refs in batches of this many (1 MiB) so it holds the lock only briefly.
constexpr size_t kBatchLines = 64 * 1024;

Error ioError(const QString &path, int err) {
    return Error::internal(wire::code::Internal,
                           QStringLiteral("cannot read session file %1: %2")
                               .arg(path, QString::fromLocal8Bit(std::strerror(err))));
}
} // namespace

// A read-only file descriptor. POSIX rather than QFile: no QObject on worker threads, pread
// needs no seek, and fstat gives the inode that tells a replaced file from a grown one.
class PosixFile final {
    Q_DISABLE_COPY_MOVE(PosixFile)
public:
    explicit PosixFile(const QString &path)
        : m_fd(::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC))
        , m_errno(m_fd < 0 ? errno : 0) {}
    ~PosixFile() {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    bool isOpen() const { return m_fd >= 0; }
    int error() const { return m_errno; }
    bool stat(struct stat *st) const { return ::fstat(m_fd, st) == 0; }
    // Reads up to n bytes at off; fewer only at end of file. -1 on error.
    qint64 read(char *buf, qint64 n, qint64 off) const {
        qint64 done = 0;
        while (done < n) {
            const ssize_t r = ::pread(m_fd, buf + done, size_t(n - done), off_t(off + done));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return -1;
            if (r == 0)
                break;
            done += r;
        }
        return done;
    }

private:
    int m_fd;
    int m_errno;
};

SessionIndex::SessionIndex(QString path, bool includeSidechain, LineFormat lineFormat)
    : m_path(std::move(path))
    , m_includeSidechain(includeSidechain)
    , m_format(lineFormat) {
}

SessionIndex::~SessionIndex() = default;

void SessionIndex::reset() {
    m_lines.clear();
    m_lines.shrink_to_fit();
    m_entries = 0;
    m_skipped = 0;
    m_indexedBytes = 0;
    m_guard.clear();
    m_built = false;
}

SessionIndex::Stats SessionIndex::statsLocked() const {
    return {m_entries, m_skipped, m_indexedBytes, m_fileSize};
}

Result<SessionIndex::Stats> SessionIndex::refresh() {
    QMutexLocker lock(&m_mutex);
    PosixFile file(m_path);
    return refreshLocked(file);
}

Result<SessionIndex::Stats> SessionIndex::refreshLocked(PosixFile &file) {
    struct stat st {};
    if (!file.isOpen() || !file.stat(&st)) {
        const int err = file.isOpen() ? errno : file.error();
        reset();
        m_memory.store(0, std::memory_order_relaxed);
        if (err == ENOENT)
            return Error::notFound(wire::code::NotFound,
                                   QStringLiteral("session file %1 is gone").arg(m_path));
        return ioError(m_path, err);
    }
    const qint64 size = st.st_size;
    const qint64 mtimeNs = qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    const bool sameFile =
        m_built && m_device == quint64(st.st_dev) && m_inode == quint64(st.st_ino);
    if (sameFile && size == m_fileSize && mtimeNs == m_mtimeNs)
        return statsLocked(); // the common warm case: one fstat

    bool rebuild = !sameFile || size < m_indexedBytes;
    if (!rebuild && !m_guard.isEmpty() && readGuard(file) != m_guard)
        rebuild = true; // rewritten in place, not appended to
    if (rebuild) {
        if (m_built)
            qCInfo(lcHistory).noquote() << "re-indexing" << m_path << "(replaced or rewritten)";
        reset();
    }
    const bool fresh = m_indexedBytes == 0;
    if (fresh)
        m_builds.fetch_add(1, std::memory_order_relaxed);
    const qint64 from = m_indexedBytes;
    if (!scan(file, from, size)) {
        const int err = errno;
        reset(); // lines may have been added past m_indexedBytes: start over next time
        return ioError(m_path, err);
    }
    m_bytesScanned.fetch_add(size - from, std::memory_order_relaxed);
    if (fresh)
        m_lines.shrink_to_fit(); // a first build leaves up to 2x slack from vector growth
    m_guard = readGuard(file);
    m_fileSize = size;
    m_mtimeNs = mtimeNs;
    m_device = quint64(st.st_dev);
    m_inode = quint64(st.st_ino);
    m_built = true;
    m_memory.store(qint64(m_lines.capacity() * sizeof(LineRef)) + m_guard.size() +
                       qint64(sizeof(SessionIndex)),
                   std::memory_order_relaxed);
    return statsLocked();
}

QByteArray SessionIndex::readGuard(PosixFile &file) const {
    const qint64 n = std::min(kGuardBytes, m_indexedBytes);
    QByteArray out(n, Qt::Uninitialized);
    if (n > 0 && file.read(out.data(), n, m_indexedBytes - n) != n)
        out.clear(); // unreadable: differs from any real guard, forces a rebuild next time
    return out;
}

bool SessionIndex::scan(PosixFile &file, qint64 from, qint64 to) {
    QByteArray buf;
    // No bigger than the range (+1: a range read whole never looks like one line filling the
    // buffer): the pages a scan touches stay with the pool thread's malloc arena, and a 4 MiB
    // buffer for every small session file let each arena creep towards 4 MiB (tst_soak).
    qsizetype cap = qsizetype(std::clamp<qint64>(to - from + 1, 64 * 1024, kChunkBytes));
    buf.resize(cap);
    qint64 base = from; // file offset of buf[0]
    qsizetype have = 0;
    bool discarding = false; // inside a line longer than kMaxLineBytes
    qint64 discardStart = 0;
    while (base + have < to) {
        const qint64 want = std::min<qint64>(cap - have, to - (base + have));
        const qint64 n = file.read(buf.data() + have, want, base + have);
        if (n < 0)
            return false;
        if (n == 0)
            break; // shrank since fstat: the next refresh sees it
        have += qsizetype(n);
        const char *const d = buf.constData();
        qsizetype pos = 0;
        while (pos < have) {
            const auto *nl =
                static_cast<const char *>(std::memchr(d + pos, '\n', size_t(have - pos)));
            if (!nl)
                break;
            const qsizetype len = nl - (d + pos);
            if (discarding) {
                discarding = false;
                ++m_skipped;
            } else {
                addLine(d + pos, len, base + pos);
            }
            pos += len + 1;
        }
        if (pos > 0) {
            std::memmove(buf.data(), d + pos, size_t(have - pos));
            base += pos;
            have -= pos;
        }
        if (have == cap) { // one line fills the whole buffer
            if (!discarding && cap < kMaxLineBytes) {
                cap = qsizetype(std::min<qint64>(qint64(cap) * 2, kMaxLineBytes));
                buf.resize(cap);
            } else {
                if (!discarding) {
                    discarding = true;
                    discardStart = base;
                    qCWarning(lcHistory).noquote() << "skipping a line over" << kMaxLineBytes
                                                   << "bytes at offset" << base << "of" << m_path;
                }
                base += have;
                have = 0;
            }
        }
    }
    // An unfinished line (long or not) is read again, whole, by the next refresh.
    m_indexedBytes = discarding ? discardStart : base;
    return true;
}

void SessionIndex::addLine(const char *b, qsizetype len, qint64 offset) {
    m_format(b, b + len, &m_scratch);
    if (m_scratch.blank)
        return;
    if (!m_scratch.valid) {
        ++m_skipped;
        return;
    }
    if (m_scratch.sidechain && !m_includeSidechain)
        return;
    const int n = m_scratch.entryCount();
    if (n == 0)
        return;
    if (m_entries + n > qint64(std::numeric_limits<quint32>::max())) {
        ++m_skipped; // 4 billion entries: LineRef's counter is full
        return;
    }
    m_lines.push_back({offset, quint32(len), quint32(m_entries)});
    m_entries += n;
}

qint64 SessionIndex::entriesIn(size_t line) const {
    const qint64 next =
        line + 1 < m_lines.size() ? qint64(m_lines[line + 1].entriesBefore) : m_entries;
    return next - qint64(m_lines[line].entriesBefore);
}

Result<SessionIndex::Range> SessionIndex::page(qint64 offsetFromNewest, qint64 limit) {
    QMutexLocker lock(&m_mutex);
    PosixFile file(m_path);
    const auto stats = refreshLocked(file);
    if (!stats)
        return stats.error();
    const qint64 end = std::max<qint64>(0, m_entries - offsetFromNewest);
    const qint64 first = std::max<qint64>(0, end - limit);
    return readRangeLocked(file, first, end - first);
}

Result<SessionIndex::Range> SessionIndex::head(qint64 count) {
    QMutexLocker lock(&m_mutex);
    PosixFile file(m_path);
    const auto stats = refreshLocked(file);
    if (!stats)
        return stats.error();
    return readRangeLocked(file, 0, count);
}

Result<SessionIndex::Range> SessionIndex::readRangeLocked(PosixFile &file, qint64 first,
                                                          qint64 count) {
    Range out;
    out.stats = statsLocked();
    count = std::max<qint64>(0, std::min(count, m_entries - first));
    out.first = first;
    if (count == 0)
        return out;
    // The line holding entry `first`, and the line after the one holding entry first+count-1.
    auto byEntry = [](qint64 ordinal, const LineRef &l) { return ordinal < l.entriesBefore; };
    const auto from =
        size_t(std::upper_bound(m_lines.begin(), m_lines.end(), first, byEntry) - m_lines.begin()) -
        1;
    const auto to =
        size_t(std::upper_bound(m_lines.begin(), m_lines.end(), first + count - 1, byEntry) -
               m_lines.begin());
    ScannedLine line;
    const bool ok = readLines(file, m_lines.data() + from, to - from, &out.bytesRead,
                              [&](size_t k, const char *b, qsizetype len) {
                                  const size_t i = from + k;
                                  m_format(b, b + len, &line);
                                  if (!line.valid || line.entryCount() != entriesIn(i)) {
                                      // Changed under us in place: skip, count, keep going.
                                      ++out.stats.skippedLines;
                                      return true;
                                  }
                                  const qint64 base = m_lines[i].entriesBefore;
                                  for (int e = 0; e < line.entryCount(); ++e) {
                                      if (base + e >= first && base + e < first + count)
                                          out.entries.append(makeEntry(line, e));
                                  }
                                  return true;
                              });
    if (!ok)
        return ioError(m_path, errno);
    return out;
}

Result<SessionIndex::Stats>
SessionIndex::forEachLine(const std::function<bool(const LineView &)> &visit, qint64 *bytesRead) {
    // The lock is held only to refresh and to copy a batch of line refs: a search through a big
    // file must not hold up pages of the same session. One open file throughout, so a
    // replacement of the file cannot mix into the scan; a rebuild meantime ends it early.
    PosixFile file(m_path);
    Stats stats;
    size_t lines = 0;
    int generation = 0;
    {
        QMutexLocker lock(&m_mutex);
        const auto r = refreshLocked(file);
        if (!r)
            return r.error();
        stats = *r;
        lines = m_lines.size();
        generation = m_builds.load(std::memory_order_relaxed);
    }
    std::vector<LineRef> batch;
    bool stopped = false;
    for (size_t start = 0; start < lines && !stopped; start += kBatchLines) {
        {
            QMutexLocker lock(&m_mutex);
            if (m_builds.load(std::memory_order_relaxed) != generation || m_lines.size() < lines)
                break;
            batch.assign(m_lines.begin() + qsizetype(start),
                         m_lines.begin() + qsizetype(std::min(lines, start + kBatchLines)));
        }
        const bool ok =
            readLines(file, batch.data(), batch.size(), bytesRead,
                      [&](size_t k, const char *b, qsizetype len) {
                          stopped = !visit({qint64(batch[k].entriesBefore), b, b + len});
                          return !stopped;
                      });
        if (!ok)
            return ioError(m_path, errno);
    }
    return stats;
}

bool SessionIndex::readLines(PosixFile &file, const LineRef *lines, size_t count, qint64 *bytesRead,
                             const std::function<bool(size_t, const char *, qsizetype)> &fn) {
    QByteArray buf;
    qint64 bufOffset = 0;
    for (size_t i = 0; i < count; ++i) {
        const LineRef &l = lines[i];
        if (buf.isEmpty() || l.offset < bufOffset || l.offset + l.length > bufOffset + buf.size()) {
            // One read for this line and the following ones that are close enough.
            qint64 end = l.offset + l.length;
            for (size_t k = i + 1; k < count; ++k) {
                const LineRef &n = lines[k];
                if (n.offset - end > kMaxGap || n.offset + n.length - l.offset > kWindow)
                    break;
                end = n.offset + n.length;
            }
            buf.resize(qsizetype(end - l.offset));
            const qint64 got = file.read(buf.data(), buf.size(), l.offset);
            if (got < 0)
                return false;
            *bytesRead += got;
            bufOffset = l.offset;
            if (got < buf.size())
                buf.truncate(qsizetype(got)); // shrank: lines past the end are skipped below
            if (l.offset + l.length > bufOffset + buf.size())
                continue;
        }
        if (!fn(i, buf.constData() + (l.offset - bufOffset), qsizetype(l.length)))
            break;
    }
    return true;
}

} // namespace flotilla::history
