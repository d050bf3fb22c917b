#pragma once
// exec, secrets and exec tasks (POST /api/exec, /api/exec/tasks, /api/secrets) (issue 4).

#include "controllers/OrchestrationDeps.h"

#include <QObject>

namespace flotilla {

class ExecController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExecController)
public:
    explicit ExecController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~ExecController() override;
};

} // namespace flotilla
