#pragma once
// How a tool call reads in the conversation, independent of widgets: a one-line summary (the
// command, the path, the pattern) and, for the tools that change files, the change as a
// unified-diff-like list of lines. Covers Claude Code's tools and Codex's commandExecution /
// fileChange items and MCP tools; an unknown tool is summarised by its input.

#include <QJsonObject>
#include <QList>
#include <QString>

namespace flotilla::monitor {

struct DiffLine {
    enum class Kind : quint8 { File, Hunk, Context, Added, Removed };
    Kind kind = Kind::Context;
    QString text; // without the +/-/space marker

    bool operator==(const DiffLine &o) const { return kind == o.kind && text == o.text; }
};

// Longest diff shown; the rest is one Context line "... N more lines".
inline constexpr int kMaxDiffLines = 400;

// The row's title: Codex's items by what they do ("Command", "File change"), an MCP tool as
// "Flotilla · report_task" (McpTools.h), any other tool by its name.
QString toolTitle(const QString &toolName);
// One line, at most ~160 characters: "git status", "src/main.cpp", "TODO in src/", an MCP
// tool's arguments ("done · Parser shipped").
QString toolSummary(const QString &toolName, const QJsonObject &input);
// The shell command of a Bash / commandExecution call (an argv array is joined), else empty.
QString toolCommand(const QString &toolName, const QJsonObject &input);
// Edit, MultiEdit, Write, NotebookEdit and Codex's fileChange.
bool isFileChangeTool(const QString &toolName);
// The change a file tool makes: Edit's old_string -> new_string, MultiEdit's edits, Write's
// content (all added), fileChange's unified diffs (its result). Empty for other tools.
QList<DiffLine> toolDiff(const QString &toolName, const QJsonObject &input, const QString &output);
// Lines of `before` against `after`: common lines as context (3 around each change, "@@" where
// lines are skipped), removed and added lines between. Large inputs fall back to all removed
// then all added rather than spending quadratic time.
QList<DiffLine> lineDiff(const QString &before, const QString &after);
// A unified diff's text as lines (headers, hunks, +/-/context).
QList<DiffLine> parseUnifiedDiff(const QString &diff);

} // namespace flotilla::monitor
