#pragma once
// The Claude Code CLI's stream-json output, one JSON object per line, turned into the runtime's
// provider-neutral AgentEvents. Pure functions: no process, no Qt objects; fuzzable and
// unit-testable on recorded lines.

#include "agents/AgentEvent.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace flotilla {

// Parses one stdout line. Unknown or irrelevant lines yield no events; a line that is not JSON
// sets *malformed (the caller counts and logs it, never fails the turn for it).
//   system/init -> SessionStarted, stream_event text_delta -> TextDelta, assistant tool_use ->
//   ToolUse (+ Usage for a top-level message), user tool_result -> ToolResult, result ->
//   TurnEnded (the window size from modelUsage), system api_retry / status / compact_boundary
//   -> ApiRetry / Compacting.
QList<AgentEvent> parseClaudeLine(const QByteArray &line, bool *malformed = nullptr);

// The user message line written to the CLI's stdin.
QByteArray claudeUserMessage(const QString &text);

// The totalCostUSD of the last `cost-state` line in `tail` (the end of a session file): what a
// CLI resuming that session restores as its running total_cost_usd. 0 when there is none.
double lastSessionCost(const QByteArray &tail);

} // namespace flotilla
