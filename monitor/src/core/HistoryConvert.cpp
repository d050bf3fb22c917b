#include "core/HistoryConvert.h"

#include "protocol/HistoryNames.h"
#include "protocol/WireNames.h"

#include <QJsonDocument>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace hk = ::flotilla::wire::history::key;
namespace ht = ::flotilla::wire::history::entrytype;

namespace {
QList<OutputEntry> lines(OutputEntry::Kind kind, const QString &text, const QString &toolName,
                         qint64 timestamp, const QString &firstPrefix = {}, int maxLines = -1) {
    return splitIntoEntries(kind, text, toolName, timestamp, firstPrefix, maxLines);
}
} // namespace

QList<OutputEntry> entriesFromHistory(const QJsonObject &entry) {
    if (entry.value(hk::IsSubagent).toBool())
        return {};
    const QString type = entry.value(k::Type).toString();
    const QString content = entry.value(hk::Content).toString();
    const qint64 ts = entry.value(k::Timestamp).toInteger();
    const QString tool = entry.value(k::ToolName).toString();
    if (type == ht::User)
        return lines(OutputEntry::Info, content, QString(), ts, userLinePrefix());
    if (type == ht::Assistant)
        return lines(OutputEntry::Text, content, QString(), ts);
    if (type == ht::ToolUse) {
        OutputEntry e;
        e.kind = OutputEntry::ToolCall;
        e.toolName = tool;
        e.timestamp = ts;
        e.text =
            tool + QStringLiteral("  ") +
            QString::fromUtf8(
                QJsonDocument(entry.value(k::ToolInput).toObject()).toJson(QJsonDocument::Compact));
        return {e};
    }
    if (type == ht::ToolResult) {
        const auto kind =
            entry.value(hk::IsError).toBool() ? OutputEntry::Error : OutputEntry::ToolResult;
        return lines(kind, content, tool, ts, QString(), OutputModel::kMaxToolResultLines);
    }
    return {};
}

QList<OutputEntry> entriesFromHistory(const QJsonArray &messages) {
    QList<OutputEntry> out;
    for (const QJsonValue &v : messages)
        out.append(entriesFromHistory(v.toObject()));
    return out;
}

} // namespace flotilla::monitor
