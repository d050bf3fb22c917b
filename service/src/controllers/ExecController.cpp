#include "controllers/ExecController.h"

namespace flotilla {

ExecController::ExecController(const OrchestrationDeps &, QObject *parent)
    : QObject(parent) {
}

ExecController::~ExecController() = default;

} // namespace flotilla
