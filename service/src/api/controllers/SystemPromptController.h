#pragma once
// GET/POST/DELETE /api/agents/system-settings/prompt: the global system prompt every agent gets.

#include "http/ApiTypes.h"

namespace flotilla {

class HttpServer;
class SystemPromptStore;

class SystemPromptController final {
    Q_DISABLE_COPY_MOVE(SystemPromptController)
public:
    explicit SystemPromptController(SystemPromptStore &store);

    void registerRoutes(HttpServer &http);

private:
    Reply get(const ApiRequest &request) const;
    Reply set(const ApiRequest &request);
    Reply clear(const ApiRequest &request);
    // {prompt, updatedAt}
    QJsonObject current() const;

    SystemPromptStore &m_store;
};

} // namespace flotilla
