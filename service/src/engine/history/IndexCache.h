#pragma once
// Session indexes by file path, least recently used first out. Bounded two ways: the summed
// index memory (default 64 MiB: 16 bytes per conversation line, so about 4 million lines, or
// ~30 GiB of session files with the bench's line mix) and the number of files (default 256).
// An index in use by a request is never destroyed under it (shared_ptr); one evicted is simply
// rebuilt on its next use.
// Also caches each session's sub-agent map, refreshed when its subagents/ dir changes.
//
// Thread-safe.

#include "history/LineScanner.h"
#include "history/SessionSource.h"

#include <QHash>
#include <QMutex>
#include <QString>

#include <list>
#include <memory>

namespace flotilla::history {

class SessionIndex;

class IndexCache final {
    Q_DISABLE_COPY_MOVE(IndexCache)
public:
    static constexpr qint64 kDefaultBudgetBytes = 64 * 1024 * 1024;
    static constexpr int kDefaultMaxFiles = 256;

    explicit IndexCache(qint64 budgetBytes = kDefaultBudgetBytes, int maxFiles = kDefaultMaxFiles);
    ~IndexCache();

    // The index of `path`, created (not yet built) on a miss; marks it most recently used.
    // Keyed by path alone: a file has one format (SessionSource::format()).
    std::shared_ptr<SessionIndex> acquire(const QString &path, bool includeSidechain,
                                          LineFormat format);
    // The index of `path` if cached, without creating one or touching the LRU order.
    std::shared_ptr<SessionIndex> peek(const QString &path) const;
    // Evicts least recently used indexes until within budget. Call after an index grew.
    void trim();

    // source.subagentFiles(sessionFilePath), cached until the mtime of its sub-agents dir
    // (source.subagentsDir()) changes; `force` lists again anyway (a transcript may be announced
    // after the dir last changed).
    QHash<QString, QString> subagentFiles(const SessionSource &source,
                                          const QString &sessionFilePath, bool force = false);

    qint64 memoryBytes() const;
    int size() const;

private:
    struct Slot {
        QString path;
        std::shared_ptr<SessionIndex> index;
    };
    struct SubagentMap {
        qint64 dirMtimeNs = -1;
        QHash<QString, QString> files;
    };

    const qint64 m_budget;
    const int m_maxFiles;
    mutable QMutex m_mutex;
    std::list<Slot> m_lru; // front: most recently used
    QHash<QString, std::list<Slot>::iterator> m_byPath;
    QHash<QString, SubagentMap> m_subagents;
};

} // namespace flotilla::history
