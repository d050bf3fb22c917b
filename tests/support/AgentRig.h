#pragma once
// Everything an agent test needs: the scripted model, the real service in-process pointed at it
// with the pinned CLI, a REST client, a WebSocket client, and one agent. The agent is a Claude
// one (MockAnthropic, `mock`) unless the rig is made for "codex" (MockOpenAI, `openai`, the
// agent's model "gpt-mock"); model() scripts either.

#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/MockOpenAI.h"
#include "support/ScriptedModel.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QDir>
#include <QJsonArray>
#include <functional>
#include <memory>

namespace flotilla::test {

// The agent providers a parameterised test runs for.
inline const QStringList &agentProviders() {
    static const QStringList providers{QStringLiteral("claude"), QStringLiteral("codex")};
    return providers;
}
// QTest data: a QString column "provider" and one row per provider, named after it.
void addProviderRows();

class AgentRig final {
public:
    explicit AgentRig(const std::function<void(ServerConfig &)> &tweak = {});
    // provider "claude" or "codex"; `tweak` runs after the rig's own settings.
    explicit AgentRig(const QString &provider,
                      const std::function<void(ServerConfig &)> &tweak = {});
    Q_DISABLE_COPY_MOVE(AgentRig)

    // Starts mock + service, opens the WebSocket, creates agent "agent-1" in a fresh cwd.
    bool start();
    // Creates another agent of the rig's provider in cwd; `fields` add to (or override) the body.
    HttpResponse createAgent(const QString &name, const QJsonObject &fields = {});
    // The model the rig's agents talk to, whatever their provider.
    ScriptedModel &model() { return *m_model; }
    QString provider() const { return m_model->provider(); }
    bool isCodex() const { return provider() == QLatin1String("codex"); }
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

    MockAnthropic mock; // Claude rigs' model
    MockOpenAI openai;  // Codex rigs' model
    std::unique_ptr<TestService> svc;
    HttpClient http;
    std::unique_ptr<WsClient> ws;
    QString agentId;
    QString cwd;
    QString home;
    QByteArray token; // the service's AUTH_TOKEN, if the tweak set one

private:
    std::function<void(ServerConfig &)> m_tweak;
    std::unique_ptr<ScriptedModel> m_model;
};

} // namespace flotilla::test
