#include "history/LineScanner.h"

#include "history/CodexRollout.h"
#include "history/JsonSkimmer.h"

namespace flotilla::history {

namespace {

using detail::Skimmer;
using Blocks = QVarLengthArray<RawBlock, 4>;

// One element of message.content: {"type": "...", ...}.
bool scanBlock(Skimmer &s, Blocks &blocks) {
    Span type;
    RawBlock blk;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "text")
            return s.stringOrValue(&blk.text);
        if (k == "id" || k == "tool_use_id")
            return s.stringOrValue(&blk.id);
        if (k == "name")
            return s.stringOrValue(&blk.name);
        if (k == "input" || k == "content")
            return s.value(&blk.value);
        if (k == "is_error")
            return s.boolean(&blk.isError);
        return s.value();
    });
    if (!ok)
        return false;
    const std::string_view t = type.view();
    if (t == "text")
        blk.kind = BlockKind::Text;
    else if (t == "image")
        blk.kind = BlockKind::Image;
    else if (t == "tool_use")
        blk.kind = BlockKind::ToolUse;
    else if (t == "tool_result")
        blk.kind = BlockKind::ToolResult;
    else
        return true; // thinking, redacted_thinking, server tools...: not entries
    blocks.append(blk);
    return true;
}

bool scanMessage(Skimmer &s, Blocks &blocks) {
    return s.object([&](Span key) {
        if (key.view() != "content")
            return s.value();
        if (s.peek('"')) {
            RawBlock blk;
            if (!s.string(&blk.text))
                return false;
            blocks.append(blk);
            return true;
        }
        if (s.peek('['))
            return s.array([&] { return s.peek('{') ? scanBlock(s, blocks) : s.value(); });
        return s.value();
    });
}

bool keep(const RawBlock &blk, LineRole role) {
    switch (blk.kind) {
    case BlockKind::Text:
        return isMeaningfulText(blk.text);
    case BlockKind::Image:
    case BlockKind::ToolResult:
        return role == LineRole::User;
    case BlockKind::ToolUse:
        return role == LineRole::Assistant;
    }
    return false;
}

} // namespace

void scanLine(const char *b, const char *e, ScannedLine *out) {
    Skimmer s(b, e);
    if (!beginLine(s, out))
        return;
    Span type;
    const bool ok = s.object([&](Span key) {
        const std::string_view k = key.view();
        if (k == "type")
            return s.stringOrValue(&type);
        if (k == "isSidechain")
            return s.boolean(&out->sidechain);
        if (k == "isMeta")
            return s.boolean(&out->meta);
        if (k == "uuid")
            return s.stringOrValue(&out->uuid);
        if (k == "timestamp")
            return s.stringOrValue(&out->timestamp);
        if (k == "message")
            return s.peek('{') ? scanMessage(s, out->blocks) : s.value();
        return s.value();
    });
    s.ws();
    if (!ok || !s.atEnd()) {
        out->blocks.clear();
        return;
    }
    out->valid = true;
    const std::string_view t = type.view();
    out->role = t == "user"        ? LineRole::User
                : t == "assistant" ? LineRole::Assistant
                                   : LineRole::Other;
    if (out->role == LineRole::Other || out->meta) {
        out->blocks.clear();
        return;
    }
    qsizetype kept = 0;
    for (qsizetype i = 0; i < out->blocks.size(); ++i) {
        if (keep(out->blocks[i], out->role))
            out->blocks[kept++] = out->blocks[i];
    }
    out->blocks.resize(kept);
}

void scanLine(LineFormat format, const char *b, const char *e, ScannedLine *out) {
    if (format == LineFormat::Codex)
        scanCodexLine(b, e, out);
    else
        scanLine(b, e, out);
}

bool isMeaningfulText(Span escaped) {
    if (escaped.isNull())
        return false;
    static constexpr std::string_view kOpen = "<system-reminder>";
    static constexpr std::string_view kClose = "</system-reminder>";
    std::string_view s = escaped.view();
    for (;;) {
        // Whitespace, raw or as JSON escapes.
        while (!s.empty()) {
            if (s[0] == ' ' || s[0] == '\t')
                s.remove_prefix(1);
            else if (s.size() >= 2 && s[0] == '\\' && (s[1] == 'n' || s[1] == 'r' || s[1] == 't'))
                s.remove_prefix(2);
            else
                break;
        }
        if (s.empty())
            return false;
        if (s.substr(0, kOpen.size()) != kOpen)
            return true;
        const size_t close = s.find(kClose, kOpen.size());
        if (close == std::string_view::npos)
            return true; // an unterminated reminder is shown rather than silently dropped
        s.remove_prefix(close + kClose.size());
    }
}

} // namespace flotilla::history
