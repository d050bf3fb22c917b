#pragma once
// Standing permission rules, the pending requests (the inbox) and the decision log. The
// decisions themselves are the PermissionBroker's; this controller only reads and changes what
// it stores, and announces rule changes (permission_rules_update).

#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class EventHub;
class HttpServer;
class PermissionBroker;
class RuleStore;

class PermissionRulesController final {
    Q_DISABLE_COPY_MOVE(PermissionRulesController)
public:
    PermissionRulesController(RuleStore &rules, const PermissionBroker &permissions,
                              const AgentRegistry &agents, EventHub &hub);

    void registerRoutes(HttpServer &http);

private:
    Reply listRules(const ApiRequest &request) const;
    Reply addRule(const ApiRequest &request);
    Reply removeRule(const ApiRequest &request);
    Reply pendingRequests(const ApiRequest &request) const;
    Reply decisions(const ApiRequest &request) const;

    RuleStore &m_rules;
    const PermissionBroker &m_permissions;
    const AgentRegistry &m_agents;
};

} // namespace flotilla
