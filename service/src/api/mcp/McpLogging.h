#pragma once
// The MCP server's logging category: sessions, refused requests and tool calls (never a token,
// never a tool's arguments: they may hold secrets). Enable with
// QT_LOGGING_RULES="flotilla.mcp.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcMcp)
