#pragma once
// /api/classes: agent classes (shaping/ClassCatalog) and their icons. Announces every change as
// class_created / class_updated / class_deleted.

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class ClassCatalog;
class EventHub;
class HttpServer;

class ClassesController final {
    Q_DISABLE_COPY_MOVE(ClassesController)
public:
    ClassesController(ClassCatalog &classes, const AgentRegistry &agents, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply icon(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply update(const ApiRequest &request);
    Reply remove(const ApiRequest &request);

    ClassCatalog &m_classes;
    const AgentRegistry &m_agents;
};

} // namespace flotilla
