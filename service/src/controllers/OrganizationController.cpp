#include "controllers/OrganizationController.h"

namespace flotilla {

OrganizationController::OrganizationController(const OrchestrationDeps &, QObject *parent)
    : QObject(parent) {
}

OrganizationController::~OrganizationController() = default;

} // namespace flotilla
