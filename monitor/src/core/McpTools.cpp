#include "core/McpTools.h"

#include "protocol/McpNames.h"
#include "protocol/WireNames.h"

namespace flotilla::monitor {

namespace mcp = wire::mcp;
namespace k = wire::key;

namespace {

QString joined(const QString &a, const QString &separator, const QString &b) {
    if (a.isEmpty())
        return b;
    return b.isEmpty() ? a : a + separator + b;
}

QString arg(const QJsonObject &arguments, QLatin1String key) {
    return arguments.value(key).toString();
}

} // namespace

std::optional<McpToolName> parseMcpToolName(const QString &toolName) {
    if (!toolName.startsWith(mcp::ToolNamePrefix))
        return std::nullopt;
    // The server's name comes first; a tool's own name may hold "__" too.
    const qsizetype start = mcp::ToolNamePrefix.size();
    const qsizetype sep = toolName.indexOf(mcp::ToolNameSeparator, start);
    if (sep <= start || sep + mcp::ToolNameSeparator.size() >= toolName.size())
        return std::nullopt;
    return McpToolName{toolName.mid(start, sep - start),
                       toolName.mid(sep + mcp::ToolNameSeparator.size())};
}

QString mcpToolTitle(const McpToolName &name) {
    const QString server =
        name.server == mcp::ServerName ? QStringLiteral("Flotilla") : name.server;
    return server + QStringLiteral(" \u00b7 ") + name.tool;
}

QString mcpToolSummary(const McpToolName &name, const QJsonObject &arguments) {
    if (name.server == mcp::ServerName) {
        if (name.tool == mcp::tool::ReportTask) {
            // The status, then the summary's first line (the row cuts at a newline anyway).
            return joined(arg(arguments, k::Status), QStringLiteral(" \u00b7 "),
                          arg(arguments, mcp::arg::Summary));
        }
        if (name.tool == mcp::tool::Notify)
            return arg(arguments, k::Title);
        if (name.tool == mcp::tool::Delegate) {
            // The member by name, or by id when the boss named it so.
            const QString agent = arg(arguments, mcp::arg::AgentName);
            return joined(agent.isEmpty() ? arg(arguments, k::AgentId) : agent,
                          QStringLiteral(": "), arg(arguments, mcp::arg::Task));
        }
        if (name.tool == mcp::tool::SpawnAgent)
            return arg(arguments, k::Name_);
    }
    // QJsonObject keeps its keys sorted: "first" is the first by name.
    for (const QJsonValue &value : arguments) {
        if (value.isString() && !value.toString().isEmpty())
            return value.toString();
    }
    return {};
}

} // namespace flotilla::monitor
