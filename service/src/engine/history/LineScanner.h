#pragma once
// One JSONL line of a session file -> how many conversation entries it yields, and where their
// pieces are. Each CLI writes its own line format, which its provider scans (a LineFormat:
// Claude Code's in agents/claude/ClaudeSessions.h, Codex's in agents/codex/CodexSessions.h); all
// of them map onto the ScannedLine here. A scanner is a validating skimmer (JsonSkimmer.h), not a
// DOM parser: it walks the bytes once, skips strings eight bytes at a time, and records only spans
// (pointers into the line). The index runs it over every line of a file (so it must run at disk
// speed); the page builder runs the very same function on the lines it returns, so entry counts and
// entries always agree.

#include <QVarLengthArray>
#include <QtGlobal>

#include <string_view>

namespace flotilla::history {

// A span of the line's bytes. For strings: the escaped contents, without the quotes.
struct Span {
    const char *b = nullptr;
    const char *e = nullptr;
    bool isNull() const { return b == nullptr; }
    qsizetype size() const { return e - b; }
    std::string_view view() const { return {b, size_t(e - b)}; }
};

enum class LineRole : quint8 { Other, User, Assistant };
enum class BlockKind : quint8 { Text, Image, ToolUse, ToolResult };

// One content block that becomes one entry.
struct RawBlock {
    BlockKind kind = BlockKind::Text;
    Span text;  // Text: the string
    Span id;    // ToolUse: id; ToolResult: tool_use_id
    Span name;  // ToolUse: tool name
    Span value; // ToolUse: input; ToolResult: content (raw JSON value, string or array)
    bool isError = false;
    // ToolUse: `value` is a JSON string whose text is the input's JSON (Codex writes function
    // call arguments that way), so it is decoded before use.
    bool encodedInput = false;
};

struct ScannedLine {
    bool valid = false; // the line is exactly one well-formed JSON object
    bool blank = false; // only whitespace: neither an entry nor a broken line
    LineRole role = LineRole::Other;
    bool sidechain = false; // "isSidechain": true (sub-agent line)
    bool meta = false;      // "isMeta": true (CLI-injected, never shown)
    Span uuid;
    Span timestamp;
    QVarLengthArray<RawBlock, 4> blocks; // entry-producing blocks only, in file order

    int entryCount() const { return int(blocks.size()); }
};

// Which CLI wrote the file, as the function that scans one of its lines: [b, e) (one line,
// without its '\n') into `out`, never reading outside the range.
using LineFormat = void (*)(const char *b, const char *e, ScannedLine *out);

// False for text that is empty, whitespace, or nothing but <system-reminder> blocks. Works on
// the escaped JSON form (whitespace escapes count as whitespace).
bool isMeaningfulText(Span escaped);

} // namespace flotilla::history
