#pragma once
// /api/agents: create, read, update and delete agents, and the simple and status lists.

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class HttpServer;

class AgentsController final {
    Q_DISABLE_COPY_MOVE(AgentsController)
public:
    explicit AgentsController(AgentRegistry &agents);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply simpleList(const ApiRequest &request) const;
    Reply statusList(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply patch(const ApiRequest &request);
    Reply remove(const ApiRequest &request);

    AgentRegistry &m_agents;
};

} // namespace flotilla
