#include "controllers/BossController.h"

namespace flotilla {

BossController::BossController(const OrchestrationDeps &, QObject *parent)
    : QObject(parent) {
}

BossController::~BossController() = default;

} // namespace flotilla
