#pragma once
// exec, secrets and exec tasks (POST /api/exec, /api/exec/tasks, /api/secrets). Owns the exec
// service and serves the secret store; turns the exec service's signals into exec_task_* events.

#include "exec/ExecService.h"
#include "exec/SecretStore.h"
#include "http/ApiTypes.h"

namespace flotilla {

class AgentRegistry;
class EventHub;
class HttpServer;
class SandboxPolicy;

class ExecController final {
    Q_DISABLE_COPY_MOVE(ExecController)
public:
    // `credentials`: the service token and the agents' live tokens (exec masks them like
    // secrets).
    ExecController(AgentRegistry &agents, SecretStore &secrets, const SandboxPolicy &sandbox,
                   EventHub &hub, Clock clock, ExecService::CredentialSource credentials);
    ~ExecController();

    void registerRoutes(HttpServer &http);

private:
    void exec(const ApiRequest &request, const ReplyCallback &done);
    Reply tasks(const ApiRequest &request) const;
    Reply killTask(const ApiRequest &request);
    Reply listSecrets(const ApiRequest &request) const;
    Reply putSecret(const ApiRequest &request);
    Reply deleteSecret(const ApiRequest &request);
    void wireEvents(EventHub &hub);

    AgentRegistry &m_agents;
    SecretStore &m_secrets;
    ExecService m_exec;
};

} // namespace flotilla
