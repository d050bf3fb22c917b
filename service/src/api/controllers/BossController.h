#pragma once
// Boss agents, delegation, report-task and work plans: the REST routes and WebSocket messages of
// the boss slice, over boss::BossService (engine/boss/).

#include "base/Clock.h"
#include "http/ApiTypes.h"

#include <memory>

class QWebSocket;

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class Database;
class EventHub;
class HttpServer;

namespace boss {
class BossService;
}

class BossController final {
    Q_DISABLE_COPY_MOVE(BossController)
public:
    BossController(AgentRegistry &agents, AgentRuntime &runtime, Database &db, EventHub &hub,
                   Clock clock);
    ~BossController();

    void registerRoutes(HttpServer &http);
    // What the MCP server's boss tools act through (api/mcp/).
    boss::BossService &service() { return *m_service; }

private:
    Reply reportTask(const ApiRequest &request);
    Reply delegations(const ApiRequest &request) const;
    Reply workPlans(const ApiRequest &request) const;
    Reply workPlan(const ApiRequest &request) const;
    Reply deleteWorkPlan(const ApiRequest &request);
    void registerMessages();
    void refuse(QWebSocket *ws, const Error &e);

    EventHub &m_hub;
    AgentRegistry &m_agents;
    std::unique_ptr<boss::BossService> m_service;
};

} // namespace flotilla
