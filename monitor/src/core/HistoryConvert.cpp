#include "core/HistoryConvert.h"

#include "protocol/HistoryNames.h"
#include "protocol/WireNames.h"

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace hk = ::flotilla::wire::history::key;
namespace ht = ::flotilla::wire::history::entrytype;

using Kind = TranscriptEntry::Kind;

namespace {
// The call a result answers: the same toolUseId, or without ids the earliest open call of that
// tool; -1 when the call is not in `out`.
qsizetype callOf(const QList<TranscriptEntry> &out, const QString &toolUseId,
                 const QString &toolName) {
    qsizetype found = -1;
    for (qsizetype i = out.size() - 1; i >= 0; --i) {
        const TranscriptEntry &e = out[i];
        if (e.kind != Kind::Tool || !e.hasInput || e.hasResult)
            continue;
        if (!toolUseId.isEmpty() && e.toolUseId == toolUseId)
            return i;
        if (toolUseId.isEmpty() && e.toolName == toolName)
            found = i;
    }
    return found;
}
} // namespace

QList<TranscriptEntry> entriesFromHistory(const QJsonArray &messages) {
    QList<TranscriptEntry> out;
    for (const QJsonValue &v : messages) {
        const QJsonObject entry = v.toObject();
        if (entry.value(hk::IsSubagent).toBool())
            continue;
        const QString type = entry.value(k::Type).toString();
        TranscriptEntry e;
        e.text = entry.value(hk::Content).toString();
        e.timestamp = entry.value(k::Timestamp).toInteger();
        e.toolName = entry.value(k::ToolName).toString();
        e.toolUseId = entry.value(hk::ToolUseId).toString();
        if (type == ht::User) {
            e.kind = Kind::User;
        } else if (type == ht::Assistant) {
            e.kind = Kind::Assistant;
        } else if (type == ht::ToolUse) {
            e.kind = Kind::Tool;
            e.toolInput = entry.value(k::ToolInput).toObject();
            e.hasInput = true;
            e.text.clear();
        } else if (type == ht::ToolResult) {
            const bool error = entry.value(hk::IsError).toBool();
            const qsizetype call = callOf(out, e.toolUseId, e.toolName);
            if (call >= 0) {
                out[call].toolOutput = e.text;
                out[call].hasResult = true;
                out[call].isError = error;
                continue;
            }
            e.kind = Kind::Tool;
            e.toolOutput = e.text;
            e.text.clear();
            e.hasResult = true;
            e.isError = error;
        } else {
            continue;
        }
        if (e.kind != Kind::Tool)
            e.toolName.clear();
        out.append(std::move(e));
    }
    return out;
}

} // namespace flotilla::monitor
