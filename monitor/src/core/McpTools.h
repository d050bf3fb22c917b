#pragma once
// MCP tools in the conversation: a tool use named "mcp__<server>__<tool>" (Claude Code's name,
// and the service's for Codex's MCP calls) reads as "Flotilla · report_task" with a line of its
// arguments. The monitor's one place for that naming rule; ToolPresentation asks it first.

#include <QJsonObject>
#include <QString>

#include <optional>

namespace flotilla::monitor {

struct McpToolName {
    QString server; // as the CLI was configured: "flotilla", "github"
    QString tool;   // "report_task"
};

// The server and tool of "mcp__<server>__<tool>"; nullopt for any other name.
std::optional<McpToolName> parseMcpToolName(const QString &toolName);
// "Flotilla · report_task"; another server's tool "<server> · <tool>".
QString mcpToolTitle(const McpToolName &name);
// A line of the arguments, uncut: report_task's "completed · <summary>", notify's title,
// delegate's "<agentName or agentId>: <task>", spawn_agent's name; any other tool its first string
// argument (empty if none).
QString mcpToolSummary(const McpToolName &name, const QJsonObject &arguments);

} // namespace flotilla::monitor
