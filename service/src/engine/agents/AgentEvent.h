#pragma once
// What an agent's CLI reported, in the runtime's words: every provider turns its own output
// (Claude's stream-json lines, Codex's JSON-RPC notifications) into these, and AgentRuntime
// applies each one as one update of the agent's state. Plain values: no process, no Qt objects.

#include "protocol/Usage.h"

#include <QJsonObject>
#include <QString>

namespace flotilla {

struct TokenUsage {
    // Billed tokens of the call or turn; a turn's are added to the agent's tokensUsed.
    qint64 inputTokens = 0;
    qint64 outputTokens = 0;
    // What the model had in its window for the call (the input side, cached parts included):
    // the agent's contextUsed. Each provider counts it in its own way.
    qint64 contextTokens = 0;
    // The model's window size, 0 when the provider did not say: the agent's contextLimit.
    qint64 contextWindow = 0;
};

struct AgentEvent {
    enum class Kind {
        SessionStarted, // the CLI's session (Codex: thread) is known: sessionId, model
        TextDelta,      // streamed text of the current message: text
        ToolUse,        // the model calls a tool: toolUseId, toolName, toolInput
        ToolResult,     // a tool's answer: toolUseId, toolOutput, isError
        Usage,          // token use of one model call: usage
        TurnEnded,      // the turn is over: isError, text (final answer or the error), usage
        ApiRetry,       // the CLI retries the model API: attempt, text (the error)
        Compacting,     // the CLI started (active) or finished (!active) compacting its context
    };
    Kind kind = Kind::TextDelta;
    QString sessionId;
    QString model;
    QString text;
    QString toolUseId;
    QString toolName;
    QJsonObject toolInput;
    QString toolOutput;
    // A tool use that invokes one of the agent's skills: its name as the CLI knows it (Claude:
    // "flotilla:<slug>"), for the output chunk.
    QString skill;
    // Non-empty inside a sub-agent (Claude's Task tool): the id of the tool use that runs it.
    // Sub-agents' text and tools are not the agent's own current work.
    QString parentToolUseId;
    bool isError = false;
    bool active = false;
    int attempt = 0;
    TokenUsage usage;
    // TurnEnded: the whole turn's usage as the usage record counts it (turns 1; see
    // protocol/Usage.h for what each figure holds). Claude's costUsd is what the turn added to
    // the session's running total_cost_usd (ClaudeProcess keeps that total).
    UsageTotals turnUsage;

    bool isTopLevel() const { return parentToolUseId.isEmpty(); }
};

} // namespace flotilla
