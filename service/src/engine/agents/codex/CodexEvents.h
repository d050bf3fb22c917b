#pragma once
// `codex app-server` speaks JSON-RPC 2.0 over stdio, one JSON object per line each way
// (../shared/reference/codex-cli.md; the methods and fields relied on here are checked against
// the installed CLI's own schema by tests/tst_codex_protocol.cpp). Pure functions: the line
// codec, and notifications turned into AgentEvents. No process, no Qt objects; fuzzable.

#include "agents/AgentEvent.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

namespace flotilla::codex {

// One line from the server, classified.
struct Message {
    enum class Type {
        Response,      // the answer to one of our requests: id, result
        ErrorResponse, // id, errorMessage
        Notification,  // method, params
        ServerRequest, // the server asks us (approvals): id, method, params
        Malformed,     // not JSON, or no shape of the above
    };
    Type type = Type::Malformed;
    QJsonValue id;
    QString method;
    QJsonObject params;
    QJsonObject result;
    QString errorMessage;
};

Message parseLine(const QByteArray &text);

QByteArray request(int id, const QString &method, const QJsonObject &params);
QByteArray notification(const QString &method, const QJsonObject &params = {});
QByteArray response(const QJsonValue &id, const QJsonObject &result);
QByteArray errorResponse(const QJsonValue &id, int code, const QString &message);

// What the event mapping remembers within one turn.
struct TurnState {
    QString lastAgentText; // the last completed agentMessage: the turn's final answer
    QString lastError;     // the last error notification that will not be retried
    int retries = 0;
    TokenUsage usage; // the turn's billed tokens so far; contextTokens: the latest call's input
    UsageTotals turnUsage; // the same calls as the usage record counts them (cached apart)
    void reset() { *this = TurnState(); }
};

// Tool names of Codex's items in output chunks and tool history.
inline constexpr char kCommandTool[] = "commandExecution";
inline constexpr char kFileChangeTool[] = "fileChange";
// The item type of an MCP tool call; its tool name is mcpToolName(server, tool).
inline constexpr char kMcpToolCall[] = "mcpToolCall";
// "mcp__<server>__<tool>": how Claude Code names an MCP tool, and so how both CLIs' calls show.
QString mcpToolName(const QString &server, const QString &tool);

// The events one server notification means (often none). `state` carries the turn's text,
// errors and usage from one notification to the next.
QList<AgentEvent> eventsOf(const QString &method, const QJsonObject &params, TurnState *state);

} // namespace flotilla::codex
