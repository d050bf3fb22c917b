#pragma once
// JSON keys and values of the history, search and sessions answers that protocol/WireNames.h does
// not have yet (keys it has, e.g. sessionId, timestamp, toolName, are spelled through it).
// Candidates to move into WireNames.h once the monitor reads history.

#include "protocol/WireNames.h"

namespace flotilla::history {

namespace key {
using wire::Name;
// Entries
inline constexpr Name Uuid{"uuid"};
inline constexpr Name Content{"content"};
inline constexpr Name ToolUseId{"toolUseId"};
inline constexpr Name IsError{"isError"};
inline constexpr Name Truncated{"truncated"};
inline constexpr Name ContentLength{"contentLength"};
inline constexpr Name IsSubagent{"isSubagent"};
inline constexpr Name ParentToolUseId{"parentToolUseId"};
inline constexpr Name SubagentEntryCount{"subagentEntryCount"};
// History page
inline constexpr Name Messages{"messages"};
inline constexpr Name TotalCount{"totalCount"};
inline constexpr Name HasMore{"hasMore"};
inline constexpr Name Offset{"offset"};
inline constexpr Name Limit{"limit"};
inline constexpr Name SkippedLines{"skippedLines"};
inline constexpr Name SubagentEntriesTruncated{"subagentEntriesTruncated"};
// Search
inline constexpr Name Query{"query"};
inline constexpr Name Matches{"matches"};
inline constexpr Name TotalMatches{"totalMatches"};
inline constexpr Name ScannedBytes{"scannedBytes"};
// Sessions
inline constexpr Name Sessions{"sessions"};
inline constexpr Name LastModified{"lastModified"};
inline constexpr Name SizeBytes{"sizeBytes"};
inline constexpr Name MessageCount{"messageCount"};
inline constexpr Name CurrentSessionId{"currentSessionId"};
} // namespace key

namespace entrytype {
inline constexpr wire::Name User{"user"};
inline constexpr wire::Name Assistant{"assistant"};
inline constexpr wire::Name ToolUse{"tool_use"};
inline constexpr wire::Name ToolResult{"tool_result"};
} // namespace entrytype

// Query parameters.
namespace param {
inline constexpr wire::Name Limit{"limit"};
inline constexpr wire::Name Offset{"offset"};
inline constexpr wire::Name IncludeSubagents{"includeSubagents"};
inline constexpr wire::Name SubagentEntriesLimit{"subagentEntriesLimit"};
inline constexpr wire::Name SessionId{"sessionId"};
inline constexpr wire::Name Q{"q"};
} // namespace param

} // namespace flotilla::history
