#pragma once
// Everything an agent test needs: the scripted model (MockAnthropic), the real service in-process
// pointed at it with the pinned CLI, a REST client, a WebSocket client, and one agent.

#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QDir>
#include <QJsonArray>
#include <functional>
#include <memory>

namespace flotilla::test {

class AgentRig final {
public:
    explicit AgentRig(const std::function<void(ServerConfig &)> &tweak = {});

    // Starts mock + service, opens the WebSocket, creates agent "agent-1" in a fresh cwd.
    bool start();
    // Stops the service (its agent processes end) and starts it again on the same data dir.
    bool restartService();

    HttpResponse send(const QString &message, const QString &agentId = {});
    HttpResponse post(const QString &path, const QJsonObject &body) {
        return http.post(svc->url(path), body);
    }
    QJsonObject agent(const QString &agentId = {});
    // Waits for the n-th final output chunk (isStreaming false) of the agent; timeout in ms.
    bool waitTurns(int n, int timeoutMs = 30000, const QString &agentId = {});
    // Output chunks of the agent, in order.
    QList<QJsonObject> chunks(const QString &agentId = {}) const;
    QString streamedText(const QString &agentId = {}) const;
    QList<QJsonObject> updates(const QString &agentId = {}) const; // agent_updated payloads
    bool waitStatus(const QString &status, int timeoutMs = 30000, const QString &agentId = {});
    QUrl wsUrl() const; // with ?token= when the tweak turned auth on

    MockAnthropic mock;
    std::unique_ptr<TestService> svc;
    HttpClient http;
    std::unique_ptr<WsClient> ws;
    QString agentId;
    QString cwd;
    QString home;
    QByteArray token; // the service's AUTH_TOKEN, if the tweak set one

private:
    std::function<void(ServerConfig &)> m_tweak;
};

} // namespace flotilla::test
