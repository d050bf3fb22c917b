#pragma once
// boss agents, delegation, report-task and work plans (issue 4).

#include "controllers/OrchestrationDeps.h"

#include <QObject>

namespace flotilla {

class BossController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BossController)
public:
    explicit BossController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~BossController() override;
};

} // namespace flotilla
