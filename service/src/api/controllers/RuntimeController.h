#pragma once
// Messages to agents, the runtime bulk operations (stop, clear-context, change-model) and the
// tool history recorded from the live streams.

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class HttpServer;
class ToolHistory;

class RuntimeController final {
    Q_DISABLE_COPY_MOVE(RuntimeController)
public:
    RuntimeController(AgentRegistry &agents, AgentRuntime &runtime, ToolHistory &tools);

    void registerRoutes(HttpServer &http);

private:
    Reply message(const ApiRequest &request);
    Reply bulkStop(const ApiRequest &request);
    Reply bulkClearContext(const ApiRequest &request);
    Reply bulkChangeModel(const ApiRequest &request);
    Reply toolHistory(const ApiRequest &request) const;

    AgentRegistry &m_agents;
    AgentRuntime &m_runtime;
    ToolHistory &m_tools;
};

} // namespace flotilla
