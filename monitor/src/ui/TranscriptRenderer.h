#pragma once
// Writes one transcript entry into a QTextDocument at a cursor, as the conversation shows it:
// replies as markdown (GitHub dialect, raw HTML shown as text, code blocks in a monospace block
// under their language), user messages in a tinted block, tool calls as a one-line row whose
// header toggles its details (command and output, a coloured diff for file changes), errors and
// stops marked. Every entry starts with a thin spacer block of its own, so entries can be
// removed and re-rendered by position without touching their neighbours.

#include "core/TranscriptModel.h"

#include <QFont>
#include <QUrl>

#include <optional>

class QTextCursor;

namespace flotilla::monitor::ui {

// The scheme of a tool row's toggle link; nothing outside the view ever sees it.
inline constexpr char kToggleScheme[] = "flotilla-tool";

QUrl toggleUrl(quint64 entryId);
std::optional<quint64> toggledEntry(const QUrl &url); // the entry a toggle link names

class TranscriptRenderer final {
public:
    // `base`: the view's font (replies, headers); code uses the system's fixed font.
    explicit TranscriptRenderer(const QFont &base);

    // The agent's own sandbox confines its commands: a tool output that a refused write made
    // ("Read-only file system") gets a line saying why.
    void setSandboxed(bool sandboxed) { m_sandboxed = sandboxed; }
    bool isSandboxed() const { return m_sandboxed; }

    // `cursor` sits at the end of a block (the previous entry's last, or the document's first);
    // the entry is inserted there and the cursor ends at the end of its last block.
    void render(QTextCursor &cursor, const TranscriptEntry &e) const;

    // A reply still streaming, in two parts (ConversationView re-renders only the second on each
    // delta): the entry's spacer and the part of the reply that no longer changes, then the tail.
    // Together they read as render() of the whole reply.
    void renderReplyHead(QTextCursor &cursor, const QString &stable) const;
    void renderReplyTail(QTextCursor &cursor, const QString &tail) const;
    // Where a streaming reply may be cut: the start of the last paragraph that follows a blank
    // line outside a fenced code block and does not continue a list or an indented block; 0 when
    // there is none. What is before the cut is complete markdown that later deltas do not change.
    static qsizetype stableSplit(const QString &markdown);

    // Longest tool output shown when a row is expanded; the rest is one "... N more lines".
    static constexpr int kMaxOutputLines = 300;

private:
    void renderUser(QTextCursor &cursor, const TranscriptEntry &e) const;
    void renderMarkdown(QTextCursor &cursor, const QString &markdown) const;
    void renderTool(QTextCursor &cursor, const TranscriptEntry &e) const;
    void renderToolDetails(QTextCursor &cursor, const TranscriptEntry &e) const;
    void renderMarked(QTextCursor &cursor, const TranscriptEntry &e) const;
    void insertCodeLines(QTextCursor &cursor, const QString &text, const QColor &foreground,
                         int maxLines) const;

    QFont m_base;
    QFont m_fixed;
    bool m_sandboxed = false;
};

} // namespace flotilla::monitor::ui
