#pragma once
// The three history operations as plain functions: plain data in, a JSON answer or an Error out.
// They run on the controller's worker threads (they block on disk and on index builds), touch no
// QObject of the service and share state only through the thread-safe IndexCache.

#include "base/Error.h"
#include "history/SessionSource.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace flotilla::history {

class IndexCache;

// Which session: `requestedSessionId` (query parameter; null when absent) > the agent's own
// session id > the newest session file of its working directory.
struct SessionSelector {
    SessionSourcePtr source; // where the agent's sessions are (its provider's); null: none
    QString agentSessionId;
    QString requestedSessionId;
};

struct HistoryRequest {
    SessionSelector session;
    qint64 limit = 50;
    qint64 offset = 0;
    bool includeSubagents = true;
    int subagentEntriesLimit = 200;
};

struct SearchRequest {
    SessionSelector session;
    QString query;
    int limit = 50;
};

// The selector's source (noSessions() when it has none).
SessionSourcePtr sourceOf(const SessionSelector &selector);

// GET history: {sessionId, messages, totalCount, hasMore, offset, limit, skippedLines,
// subagentEntriesTruncated}.
Result<QJsonObject> history(IndexCache &cache, const HistoryRequest &request);

// GET sessions: {sessions: [{sessionId, lastModified, sizeBytes, messageCount}],
// currentSessionId}. messageCount comes from the index when one is cached (refreshing it costs
// only the appended bytes), or from a new index for files up to kCountOnListMaxBytes; otherwise
// null, so listing never triggers a multi-second build.
inline constexpr qint64 kCountOnListMaxBytes = 8 * 1024 * 1024;
Result<QJsonObject> sessions(IndexCache &cache, const SessionSelector &session);

// GET search: {sessionId, query, matches, totalMatches, scannedBytes, skippedLines}; see
// HistorySearch.cpp.
Result<QJsonObject> search(IndexCache &cache, const SearchRequest &request);

} // namespace flotilla::history
