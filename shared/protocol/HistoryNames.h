#pragma once
// Wire names of the history, search and sessions answers (GET /api/agents/:id/history, /search,
// /sessions): JSON keys, entry types and query parameters, shared by service and monitor.
// Keys both areas use (sessionId, timestamp, toolName...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::history {

namespace key {
using ::flotilla::wire::Name;
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
inline constexpr ::flotilla::wire::Name User{"user"};
inline constexpr ::flotilla::wire::Name Assistant{"assistant"};
inline constexpr ::flotilla::wire::Name ToolUse{"tool_use"};
inline constexpr ::flotilla::wire::Name ToolResult{"tool_result"};
} // namespace entrytype

// Query parameters.
namespace param {
inline constexpr ::flotilla::wire::Name Limit{"limit"};
inline constexpr ::flotilla::wire::Name Offset{"offset"};
inline constexpr ::flotilla::wire::Name IncludeSubagents{"includeSubagents"};
inline constexpr ::flotilla::wire::Name SubagentEntriesLimit{"subagentEntriesLimit"};
inline constexpr ::flotilla::wire::Name SessionId{"sessionId"};
inline constexpr ::flotilla::wire::Name Q{"q"};
} // namespace param

} // namespace flotilla::wire::history
