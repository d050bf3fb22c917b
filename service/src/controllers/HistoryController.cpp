#include "controllers/HistoryController.h"

#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"

namespace flotilla {

HistoryController::HistoryController(HttpServer &, const AgentRegistry &agents, QString claudeHome,
                                     QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_claudeHome(std::move(claudeHome)) {
}

HistoryController::~HistoryController() = default;

} // namespace flotilla
