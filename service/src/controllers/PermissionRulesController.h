#pragma once
// Issue 13's routes: standing permission rules, the pending requests (the inbox) and the
// decision log. The decisions themselves are PermissionController's; this controller only reads
// and changes what it stores, and announces rule changes (permission_rules_update).

#include <QObject>

namespace flotilla {

class AgentRegistry;
class EventHub;
class HttpServer;
class PermissionController;
class RuleStore;

class PermissionRulesController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionRulesController)
public:
    PermissionRulesController(HttpServer &http, RuleStore &rules,
                              const PermissionController &permissions, const AgentRegistry &agents,
                              EventHub &hub, QObject *parent = nullptr);
};

} // namespace flotilla
