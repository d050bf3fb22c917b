#pragma once
// areas, bulk delete and move-area, focus-agent, activity, config export and import (issue 4).
// Owns the organization services (area store, activity log and its recorder, config transfer)
// and registers their routes; their events go out through the hub.

#include "controllers/OrchestrationDeps.h"
#include "organization/ActivityLog.h"
#include "organization/AreaStore.h"
#include "organization/ConfigTransfer.h"

#include <QObject>

#include <functional>
#include <memory>

namespace flotilla {

class ActivityRecorder;

class OrganizationController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OrganizationController)
public:
    explicit OrganizationController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~OrganizationController() override;

private:
    void routeAreas();
    void routeBulk();
    void routeFocusAndActivity();
    void routeConfig();
    // Clears the areaId of every agent `inArea` selects, durably (flushed before returning).
    Status unassignAgents(const std::function<bool(const QString &areaId)> &inArea);

    OrchestrationDeps m_deps;
    AreaStore m_areas;
    ActivityLog m_activity;
    ConfigTransfer m_transfer;
    std::unique_ptr<ActivityRecorder> m_recorder;
};

} // namespace flotilla
