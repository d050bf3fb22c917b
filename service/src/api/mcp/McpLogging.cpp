#include "mcp/McpLogging.h"

Q_LOGGING_CATEGORY(lcMcp, "flotilla.mcp", QtInfoMsg)
