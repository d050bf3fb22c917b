// MonitorSession's history paging and search (GET /api/agents/:id/history and /search).

#include "core/HistoryConvert.h"
#include "core/MonitorSession.h"
#include "protocol/HistoryNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QUrlQuery>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace hk = ::flotilla::wire::history::key;
namespace hp = ::flotilla::wire::history::param;

using client::RestReply;

namespace {
QString pathId(const QString &id) {
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}
} // namespace

// GET /api/agents/:id/history?limit&offset&includeSubagents&sessionId -> 200 page | 404 | 422
void MonitorSession::loadOlderHistory(const QString &agentId,
                                      std::function<void(bool hasMore)> done) {
    HistoryCursor &cursor = m_historyCursor[agentId];
    if (cursor.exhausted) {
        if (done)
            done(false);
        return;
    }
    if (done)
        cursor.waiters.append(std::move(done));
    if (cursor.loading)
        return; // the page on its way answers this caller too
    if (cursor.generation == 0)
        cursor.generation = ++m_historyGeneration;
    if (cursor.oldestIndex < 0)
        cursor.liveSince = conversation(agentId).oldestTimestamp();
    cursor.loading = true;
    // offset counts back from the newest entry; the page must end where the last one began.
    const qint64 offset = cursor.oldestIndex < 0 ? 0 : cursor.lastTotal - cursor.oldestIndex;
    QUrlQuery query;
    query.addQueryItem(QString(hp::Limit), QString::number(kHistoryPageSize));
    query.addQueryItem(QString(hp::Offset), QString::number(offset));
    query.addQueryItem(QString(hp::IncludeSubagents), QStringLiteral("false"));
    if (!cursor.sessionId.isEmpty())
        query.addQueryItem(QString(hp::SessionId), cursor.sessionId);
    const QString path = QStringLiteral("/api/agents/%1/history?").arg(pathId(agentId)) +
                         query.toString(QUrl::FullyEncoded);
    call(tr("load history"), QByteArrayLiteral("GET"), path, {},
         [this, agentId, offset, generation = cursor.generation](const RestReply &r) {
             finishHistoryPage(agentId, generation, r, offset);
         });
}

void MonitorSession::finishHistoryPage(const QString &agentId, quint64 generation,
                                       const RestReply &r, qint64 offset) {
    const auto it = m_historyCursor.find(agentId);
    if (it == m_historyCursor.end() || it->generation != generation)
        return; // reset meanwhile; its waiters were answered then
    HistoryCursor &c = *it;
    c.loading = false;
    const QList<std::function<void(bool)>> waiters = std::exchange(c.waiters, {});
    const auto answer = [&waiters](bool hasMore) {
        for (const auto &w : waiters)
            w(hasMore);
    };
    if (!r.ok()) {
        answer(false);
        return;
    }
    const QJsonObject page = r.body.object();
    const qint64 total = page.value(hk::TotalCount).toInteger();
    if (total == 0) {
        // No conversation yet: start afresh next time rather than stay "exhausted".
        m_historyCursor.erase(it);
        answer(false);
        return;
    }
    const QJsonArray messages = page.value(hk::Messages).toArray();
    c.sessionId = page.value(k::SessionId).toString();
    // Absolute index (from the oldest) of messages[0]; entries the CLI appended since the last
    // page shift the window, so anything at or past oldestIndex is a repeat.
    const qint64 first = total - offset - messages.size();
    QJsonArray older;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        if (c.oldestIndex >= 0 && first + i >= c.oldestIndex)
            continue;
        const QJsonObject entry = messages[i].toObject();
        if (c.liveSince > 0 && entry.value(k::Timestamp).toInteger() >= c.liveSince)
            continue; // already on screen from the live stream
        older.append(entry);
    }
    c.oldestIndex = std::max<qint64>(0, first);
    c.lastTotal = total;
    const bool hasMore = page.value(hk::HasMore).toBool() && c.oldestIndex > 0;
    c.exhausted = !hasMore;
    conversation(agentId).prependHistory(entriesFromHistory(older));
    answer(hasMore);
}

void MonitorSession::resetHistory(const QString &agentId) {
    const auto it = m_historyCursor.find(agentId);
    if (it == m_historyCursor.end())
        return;
    const QList<std::function<void(bool)>> waiters = std::exchange(it->waiters, {});
    m_historyCursor.erase(it);
    for (const auto &w : waiters)
        w(false);
}

// GET /api/agents/:id/search?q&limit -> 200 {sessionId, query, matches, ...} | 400 | 404 | 422
void MonitorSession::searchHistory(const QString &agentId, const QString &query, Done done) {
    QUrlQuery q;
    q.addQueryItem(QString(hp::Q), query);
    q.addQueryItem(QString(hp::Limit), QString::number(kHistoryPageSize));
    call(tr("search history"), QByteArrayLiteral("GET"),
         QStringLiteral("/api/agents/%1/search?").arg(pathId(agentId)) +
             q.toString(QUrl::FullyEncoded),
         {}, std::move(done));
}

} // namespace flotilla::monitor
