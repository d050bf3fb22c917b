#pragma once
// /api/skills: skills (shaping/SkillCatalog) that agents and classes are given. Announces every
// change as skill_created / skill_updated / skill_deleted; agents pick a change up on their next
// message (agents/AgentShaper.h).

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class ClassCatalog;
class EventHub;
class HttpServer;
class SkillCatalog;

class SkillsController final {
    Q_DISABLE_COPY_MOVE(SkillsController)
public:
    SkillsController(SkillCatalog &skills, const ClassCatalog &classes, const AgentRegistry &agents,
                     EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply list(const ApiRequest &request) const;
    Reply get(const ApiRequest &request) const;
    Reply create(const ApiRequest &request);
    Reply update(const ApiRequest &request);
    Reply remove(const ApiRequest &request);

    SkillCatalog &m_skills;
    const ClassCatalog &m_classes;
    const AgentRegistry &m_agents;
};

} // namespace flotilla
