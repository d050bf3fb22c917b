#pragma once
// The Claude Code CLI's stream-json output, one JSON object per line, turned into typed events.
// Pure functions: no process, no Qt objects; fuzzable and unit-testable on recorded lines.

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace flotilla {

struct ClaudeUsage {
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    qint64 cacheReadTokens = 0;
    qint64 cacheCreationTokens = 0;
    // What the model had in its window for this call (input side).
    qint64 contextTokens() const { return inputTokens + cacheReadTokens + cacheCreationTokens; }
};

struct ClaudeEvent {
    enum class Kind {
        Init,       // system/init: sessionId, model
        TextDelta,  // streamed text of the current top-level message
        ToolUse,    // an assistant tool_use block: toolUseId, toolName, toolInput
        ToolResult, // a user tool_result block: toolUseId, toolOutput, isError
        Usage,      // usage of a top-level assistant message
        Result,     // end of a turn: isError, text (result or error), usage, contextWindow
        ApiRetry,   // the CLI is retrying the model API: attempt, text
        Compacting, // compaction started (active) or finished (!active)
    };
    Kind kind = Kind::TextDelta;
    QString sessionId;
    QString model;
    QString text;
    QString toolUseId;
    QString toolName;
    QJsonObject toolInput;
    QString toolOutput;
    QString parentToolUseId; // non-empty inside a sub-agent (Task tool)
    bool isError = false;
    bool active = false;
    int attempt = 0;
    ClaudeUsage usage;
    qint64 contextWindow = 0;
};

// Parses one stdout line. Unknown or irrelevant lines yield no events; a line that is not JSON
// sets *malformed (the caller counts and logs it, never fails the turn for it).
QList<ClaudeEvent> parseClaudeLine(const QByteArray &line, bool *malformed = nullptr);

// The user message line written to the CLI's stdin.
QByteArray claudeUserMessage(const QString &text);

} // namespace flotilla
