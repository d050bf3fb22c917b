#pragma once
// areas, bulk delete and move-area, focus-agent, activity, config export and import (issue 4).

#include "controllers/OrchestrationDeps.h"

#include <QObject>

namespace flotilla {

class OrganizationController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OrganizationController)
public:
    explicit OrganizationController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~OrganizationController() override;
};

} // namespace flotilla
