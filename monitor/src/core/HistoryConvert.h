#pragma once
// History entries (GET /api/agents/:id/history, `messages`) as OutputModel lines, so an older
// page reads like the live stream it once was.

#include "core/OutputModel.h"

#include <QJsonArray>
#include <QList>

namespace flotilla::monitor {

// One history entry {uuid, type, content, timestamp, toolName?, toolInput?, isError?} as
// lines: user text as Info lines starting "> ", assistant text as Text, tool_use as one
// ToolCall, tool_result as ToolResult lines (Error when isError). Sub-agent entries are skipped.
QList<OutputEntry> entriesFromHistory(const QJsonObject &entry);
QList<OutputEntry> entriesFromHistory(const QJsonArray &messages);

// The prefix of a user message line in the output (live sends and history alike).
inline QString userLinePrefix() {
    return QStringLiteral("> ");
}

} // namespace flotilla::monitor
