#pragma once
// Boss agents, delegation, report-task and work plans (issue 4): the REST routes and WebSocket
// messages of the boss slice, over boss::BossService (service/src/boss/).

#include "controllers/OrchestrationDeps.h"

#include <QObject>

#include <memory>

class QWebSocket;

namespace flotilla {

struct Error;

namespace boss {
class BossService;
}

class BossController final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BossController)
public:
    explicit BossController(const OrchestrationDeps &deps, QObject *parent = nullptr);
    ~BossController() override;

private:
    void registerRoutes(HttpServer &http);
    void registerMessages();
    void refuse(QWebSocket *ws, const Error &e);

    EventHub &m_hub;
    AgentRegistry &m_agents;
    std::unique_ptr<boss::BossService> m_service;
};

} // namespace flotilla
