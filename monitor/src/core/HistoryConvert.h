#pragma once
// History entries (GET /api/agents/:id/history, `messages`) as transcript entries, so an older
// page reads like the live stream it once was: a user message is a user message, a tool call and
// its result are one entry.

#include "core/TranscriptModel.h"

#include <QJsonArray>
#include <QList>

namespace flotilla::monitor {

// Entries {uuid, type, content, timestamp, toolName?, toolInput?, toolUseId?, isError?}, oldest
// first: user and assistant text as they are, tool_use as a Tool entry that the tool_result with
// the same toolUseId completes (a result whose call is not in `messages` stays an entry of its
// own, joined later by TranscriptModel::prependHistory). Sub-agent entries are skipped.
QList<TranscriptEntry> entriesFromHistory(const QJsonArray &messages);

} // namespace flotilla::monitor
