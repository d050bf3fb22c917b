#include "history/HistoryService.h"

#include "history/HistoryWire.h"
#include "history/IndexCache.h"
#include "history/SessionIndex.h"

#include <QJsonArray>

namespace flotilla::history {

namespace {

QJsonValue idOrNull(const QString &id) {
    return id.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(id);
}

// Appends `entry` and, after it, the entries of the sub-agent it started (if any), oldest first,
// while `budget` lasts. Returns false when that sub-agent's entries did not all fit. Only a tool
// the source says starts sub-agents makes a miss in the cached map worth listing the transcripts
// again; the map itself (toolUseId -> transcript) works for any tool.
bool appendWithSubagent(IndexCache &cache, const SessionSource &source, const QString &sessionPath,
                        QJsonObject entry, QHash<QString, QString> *subagents, bool *listedAgain,
                        int *budget, QJsonArray *out) {
    const QString toolUseId = entry.value(key::ToolUseId).toString();
    QString file = subagents->value(toolUseId);
    if (file.isEmpty() && !*listedAgain &&
        source.startsSubagent(entry.value(wire::key::ToolName).toString())) {
        *subagents = cache.subagentFiles(source, sessionPath, true);
        *listedAgain = true;
        file = subagents->value(toolUseId);
    }
    if (file.isEmpty()) {
        out->append(entry);
        return true;
    }
    const auto head = cache.acquire(file, true, source.format())->head(*budget);
    if (!head) { // e.g. deleted meantime: the parent entry stands on its own
        out->append(entry);
        return true;
    }
    entry.insert(key::SubagentEntryCount, head->stats.entries);
    out->append(entry);
    const QString agentId = source.subagentId(file);
    for (QJsonObject sub : head->entries) {
        sub.insert(key::IsSubagent, true);
        sub.insert(key::ParentToolUseId, toolUseId);
        sub.insert(wire::key::AgentId, agentId);
        out->append(sub);
    }
    *budget -= int(head->entries.size());
    return head->entries.size() == head->stats.entries;
}

} // namespace

SessionSourcePtr sourceOf(const SessionSelector &selector) {
    return selector.source ? selector.source : noSessions();
}

Result<QJsonObject> history(IndexCache &cache, const HistoryRequest &request) {
    const SessionSelector &sel = request.session;
    const SessionSourcePtr source = sourceOf(sel);
    const auto session = resolveSession(*source, sel.agentSessionId, sel.requestedSessionId);
    if (!session)
        return session.error();
    QJsonObject out{{wire::key::SessionId, idOrNull(session->sessionId)},
                    {key::Offset, request.offset},
                    {key::Limit, request.limit}};
    if (session->path.isEmpty()) {
        out.insert(key::Messages, QJsonArray());
        out.insert(key::TotalCount, 0);
        out.insert(key::HasMore, false);
        out.insert(key::SkippedLines, 0);
        out.insert(key::SubagentEntriesTruncated, false);
        return out;
    }

    const auto page =
        cache.acquire(session->path, false, source->format())->page(request.offset, request.limit);
    if (!page)
        return page.error();
    QJsonArray messages;
    bool subagentsTruncated = false;
    if (request.includeSubagents && source->hasSubagents()) {
        QHash<QString, QString> subagents;
        bool listed = false;
        bool listedAgain = false;
        int budget = request.subagentEntriesLimit;
        for (const QJsonObject &e : page->entries) {
            if (e.value(wire::key::Type).toString() != entrytype::ToolUse) {
                messages.append(e);
                continue;
            }
            if (!listed) { // one stat per page when cached; only pages with tool uses pay it
                subagents = cache.subagentFiles(*source, session->path);
                listed = true;
            }
            if (!appendWithSubagent(cache, *source, session->path, e, &subagents, &listedAgain,
                                    &budget, &messages))
                subagentsTruncated = true;
        }
    } else {
        for (const QJsonObject &e : page->entries)
            messages.append(e);
    }
    cache.trim();

    out.insert(key::Messages, messages);
    out.insert(key::TotalCount, page->stats.entries);
    out.insert(key::HasMore, page->first > 0);
    out.insert(key::SkippedLines, page->stats.skippedLines);
    out.insert(key::SubagentEntriesTruncated, subagentsTruncated);
    return out;
}

Result<QJsonObject> sessions(IndexCache &cache, const SessionSelector &session) {
    const SessionSourcePtr source = sourceOf(session);
    const auto current = resolveSession(*source, session.agentSessionId, QString());
    const QString currentId = current ? current->sessionId : QString();
    QJsonArray list;
    for (const SessionFile &f : source->listSessions()) {
        auto index = cache.peek(f.path);
        if (!index && f.sizeBytes <= kCountOnListMaxBytes)
            index = cache.acquire(f.path, false, source->format());
        QJsonValue count(QJsonValue::Null);
        if (index) {
            if (const auto stats = index->refresh())
                count = stats->entries;
        }
        list.append(QJsonObject{{wire::key::SessionId, f.sessionId},
                                {key::LastModified, f.lastModifiedMs},
                                {key::SizeBytes, f.sizeBytes},
                                {key::MessageCount, count}});
    }
    cache.trim();
    return QJsonObject{{key::Sessions, list}, {key::CurrentSessionId, idOrNull(currentId)}};
}

} // namespace flotilla::history
