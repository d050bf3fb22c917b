#pragma once
// Saved prompts (docs/api.md "Saved prompts"): GET/POST /api/prompts, GET/PATCH/DELETE
// /api/prompts/:id. The store is the service's (config transfer reads and writes it too); this
// controller serves its routes and turns its signals into prompt_* events.

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class EventHub;
class HttpServer;
class PromptStore;

class PromptsController final {
    Q_DISABLE_COPY_MOVE(PromptsController)
public:
    PromptsController(PromptStore &prompts, const AgentRegistry &agents, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply patch(const ApiRequest &request);
    Reply remove(const ApiRequest &request);

    PromptStore &m_prompts;
    const AgentRegistry &m_agents;
};

} // namespace flotilla
