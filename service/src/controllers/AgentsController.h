#pragma once

#include <QObject>

namespace flotilla {

class AgentRegistry;
class HttpServer;

// /api/agents CRUD, simple and status lists.
class AgentsController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentsController)
public:
    AgentsController(HttpServer &http, AgentRegistry &agents, QObject *parent = nullptr);

private:
    AgentRegistry &m_agents;
};

} // namespace flotilla
