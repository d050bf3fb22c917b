#pragma once
// POST /api/agents/:id/permission-check: the permission hooks of an agent's Claude Code CLI (set
// up in agents/claude/ClaudeProvider.cpp) ask here about each tool use; the PermissionBroker
// decides.

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class HttpServer;
class PermissionBroker;

class PermissionHookController final {
    Q_DISABLE_COPY_MOVE(PermissionHookController)
public:
    PermissionHookController(const AgentRegistry &agents, PermissionBroker &permissions);

    void registerRoutes(HttpServer &http);

private:
    void check(const ApiRequest &request, const ReplyCallback &done);

    const AgentRegistry &m_agents;
    PermissionBroker &m_permissions;
};

} // namespace flotilla
