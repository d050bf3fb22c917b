#pragma once
// Areas, bulk delete and move-area, focus-agent, activity, config export and import. Owns the
// organization services (area store, activity log and its recorder, config transfer) and serves
// their routes; their events go out through the hub.

#include "base/Clock.h"
#include "http/ApiTypes.h"
#include "organization/ActivityLog.h"
#include "organization/AreaStore.h"
#include "organization/ConfigTransfer.h"

#include <functional>
#include <memory>

namespace flotilla {

class ActivityRecorder;
class AgentRegistry;
class Database;
class EventHub;
class HttpServer;
class RuleStore;
class SecretStore;
class SystemPromptStore;

class OrganizationController final {
    Q_DISABLE_COPY_MOVE(OrganizationController)
public:
    // `prompt`, `secrets` and `permissionRules` are what config export and import carry besides
    // the agents and areas.
    OrganizationController(AgentRegistry &agents, EventHub &hub, AreaStore &areas,
                           SystemPromptStore &prompt, SecretStore &secrets,
                           RuleStore &permissionRules, const Clock &clock);
    ~OrganizationController();

    void registerRoutes(HttpServer &http);
    // Where features with categories of their own register them (CategoryTransfer.h).
    ConfigTransfer &transfer() { return m_transfer; }

private:
    Reply listAreas(const ApiRequest &request) const;
    Reply getArea(const ApiRequest &request) const;
    Reply createArea(const ApiRequest &request);
    Reply updateArea(const ApiRequest &request);
    Reply deleteArea(const ApiRequest &request);
    Reply bulkDelete(const ApiRequest &request);
    Reply bulkMoveArea(const ApiRequest &request);
    Reply focusAgent(const ApiRequest &request);
    Reply activity(const ApiRequest &request) const;
    Reply exportConfig(const ApiRequest &request) const;
    Reply importConfig(const ApiRequest &request);
    // Clears the areaId of every agent `inArea` selects, durably (flushed before returning).
    Status unassignAgents(const std::function<bool(const QString &areaId)> &inArea);

    AgentRegistry &m_agents;
    EventHub &m_hub;
    Clock m_clock;
    AreaStore &m_areas;
    ActivityLog m_activity;
    ConfigTransfer m_transfer;
    std::unique_ptr<ActivityRecorder> m_recorder;
};

} // namespace flotilla
