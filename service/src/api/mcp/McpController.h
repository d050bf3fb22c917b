#pragma once
// flotillad's MCP server on its own port: POST /mcp and DELETE /mcp, the streamable HTTP transport
// of the Model Context Protocol with JSON answers (docs/api.md "MCP"). The port's Host and Origin
// checks, body limits and auth apply as to every route; then the caller is the user (the service
// token) or one agent (its own token), and the tools it sees and may call follow (McpTools.h).
// JSON-RPC framing and sessions are here; the tools are in McpTools.

#include "base/Clock.h"
#include "http/ApiTypes.h"
#include "mcp/McpSessions.h"
#include "mcp/McpTools.h"

#include <memory>

namespace flotilla {

class HttpServer;

class McpController final {
    Q_DISABLE_COPY_MOVE(McpController)
public:
    // Protocol versions this server speaks, newest first: those the pinned CLIs and the SDK send
    // (Claude Code 2.1.329: 2025-11-25; Codex 0.169.0: 2025-06-18) and the older ones.
    static const QStringList &protocolVersions();

    McpController(mcp::ToolDeps deps, Clock clock);
    ~McpController();

    void registerRoutes(HttpServer &http);
    const mcp::Tools &tools() const { return m_tools; }
    int sessionCount() const { return m_sessions.size(); }

private:
    void post(const ApiRequest &request, const ReplyCallback &done);
    Reply remove(const ApiRequest &request);
    Reply initialize(const mcp::Caller &caller, const QJsonValue &id, const QJsonObject &params);
    void callTool(const mcp::Caller &caller, const QJsonValue &id, const QJsonObject &params,
                  const ReplyCallback &done) const;

    mcp::Sessions m_sessions;
    mcp::Tools m_tools;
};

} // namespace flotilla
