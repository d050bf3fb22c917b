#pragma once
// exec, secrets and exec tasks (POST /api/exec, /api/exec/tasks, /api/secrets) (issue 4).
// Owns the exec service and serves the secret store; turns their signals into exec_task_* events.

#include "controllers/OrchestrationDeps.h"
#include "exec/ExecService.h"
#include "exec/SecretStore.h"

#include <QObject>

namespace flotilla {

class ExecController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecController)
public:
    explicit ExecController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~ExecController() override;

private:
    void registerExecRoutes(HttpServer &http);
    void registerSecretRoutes(HttpServer &http);
    void wireEvents(EventHub &hub);

    AgentRegistry &m_agents;
    SecretStore &m_secrets;
    ExecService m_exec;
};

} // namespace flotilla
