#pragma once
// What the orchestration controllers (exec, organization, boss) are built from: the shared
// service objects, passed by reference from the composition root (no singletons).

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class Database;
class EventHub;
class RuleStore;
class HttpServer;
class SecretStore;
class SystemPromptStore;

struct OrchestrationDeps {
    HttpServer &http;
    AgentRegistry &agents;
    AgentRuntime &runtime;
    EventHub &hub;
    Database &db;
    SystemPromptStore &prompt;
    SecretStore &secrets;       // exec substitutes them, config transfer exports them on request
    RuleStore &permissionRules; // standing permission rules: config transfer's `permissions`
    QString dataDir;
    // The service token and the agents' live tokens (exec masks them like secrets).
    std::function<QList<QByteArray>()> credentials;
};

} // namespace flotilla
