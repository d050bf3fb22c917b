#pragma once
// Scanned line -> wire entries {uuid, type, content, timestamp, toolName?, toolInput?,
// toolUseId?, isError?, truncated?, contentLength?}. Only lines a page or a search hit needs go
// through here, so this side may allocate and use QJsonDocument freely.

#include "history/LineScanner.h"

#include <QJsonObject>
#include <QString>

namespace flotilla::history {

// An entry's content is cut at this many UTF-16 units (then `truncated: true` and
// `contentLength` give the full length), and a tool_use's toolInput left out when its JSON is
// longer (`truncated: true`). Bounds the cost and size of a page whatever the file holds: 50
// entries stay under ~30 MB of JSON even when every one is a huge tool result.
inline constexpr int kMaxContentChars = 256 * 1024;
// The same cap for search matches: they locate entries (history?offset= fetches them whole),
// and up to 1000 are held while the file streams by.
inline constexpr int kMaxSearchContentChars = 4 * 1024;

QString decodeJsonString(Span escaped);
// Milliseconds since the epoch of an ISO-8601 timestamp ("2026-11-21T00:26:13.077Z"), or -1.
qint64 parseTimestampMs(Span escaped);

// The full text of one block (never cut): what search matches against.
//   text -> the text; image -> "[image]"; tool_use -> the input as the JSON text the CLI wrote;
//   tool_result -> its string content, or the texts of its content blocks joined by "\n".
QString blockContent(const RawBlock &block);

// The entry for line.blocks[index]. `content` is the block's content when already computed
// (search), else null. The first entry of a line carries the line's uuid, further ones
// "<uuid>:<index>", so uuids stay unique.
QJsonObject makeEntry(const ScannedLine &line, int index, const QString &content = QString(),
                      int maxContentChars = kMaxContentChars);

} // namespace flotilla::history
