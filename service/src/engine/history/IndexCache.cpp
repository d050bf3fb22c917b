#include "history/IndexCache.h"

#include "history/SessionIndex.h"

#include <QFile>

#include <sys/stat.h>

namespace flotilla::history {

namespace {
constexpr int kMaxSubagentMaps = 256;
}

IndexCache::IndexCache(qint64 budgetBytes, int maxFiles)
    : m_budget(budgetBytes)
    , m_maxFiles(maxFiles) {
}

IndexCache::~IndexCache() = default;

std::shared_ptr<SessionIndex> IndexCache::acquire(const QString &path, bool includeSidechain,
                                                  LineFormat format) {
    QMutexLocker lock(&m_mutex);
    const auto it = m_byPath.constFind(path);
    if (it != m_byPath.constEnd()) {
        m_lru.splice(m_lru.begin(), m_lru, *it);
        return m_lru.front().index;
    }
    m_lru.push_front({path, std::make_shared<SessionIndex>(path, includeSidechain, format)});
    m_byPath.insert(path, m_lru.begin());
    return m_lru.front().index;
}

std::shared_ptr<SessionIndex> IndexCache::peek(const QString &path) const {
    QMutexLocker lock(&m_mutex);
    const auto it = m_byPath.constFind(path);
    return it == m_byPath.constEnd() ? nullptr : (*it)->index;
}

void IndexCache::trim() {
    QMutexLocker lock(&m_mutex);
    qint64 total = 0;
    for (const Slot &s : m_lru)
        total += s.index->memoryBytes();
    // Never evict the most recently used one: it is the index the caller is working with.
    while (m_lru.size() > 1 && (total > m_budget || int(m_lru.size()) > m_maxFiles)) {
        total -= m_lru.back().index->memoryBytes();
        m_byPath.remove(m_lru.back().path);
        m_lru.pop_back();
    }
}

QHash<QString, QString> IndexCache::subagentFiles(const SessionSource &source,
                                                  const QString &sessionFilePath, bool force) {
    // Nanoseconds: a file created within the same millisecond as the last listing must show.
    struct stat st {};
    const qint64 mtime =
        ::stat(QFile::encodeName(source.subagentsDir(sessionFilePath)).constData(), &st) == 0
            ? qint64(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec
            : -1;
    if (!force) {
        QMutexLocker lock(&m_mutex);
        const auto it = m_subagents.constFind(sessionFilePath);
        if (it != m_subagents.constEnd() && it->dirMtimeNs == mtime)
            return it->files;
    }
    // Listed outside the lock: other requests need not wait for this file system work.
    QHash<QString, QString> files =
        mtime < 0 ? QHash<QString, QString>() : source.subagentFiles(sessionFilePath);
    QMutexLocker lock(&m_mutex);
    if (m_subagents.size() >= kMaxSubagentMaps)
        m_subagents.clear(); // small, cheap to rebuild: no LRU needed
    m_subagents.insert(sessionFilePath, {mtime, files});
    return files;
}

qint64 IndexCache::memoryBytes() const {
    QMutexLocker lock(&m_mutex);
    qint64 total = 0;
    for (const Slot &s : m_lru)
        total += s.index->memoryBytes();
    return total;
}

int IndexCache::size() const {
    QMutexLocker lock(&m_mutex);
    return int(m_lru.size());
}

} // namespace flotilla::history
