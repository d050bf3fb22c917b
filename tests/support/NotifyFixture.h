#pragma once
// What the notification channel suites share: the in-process service with short retry waits, a
// webhook receiver on loopback, REST helpers, and an agent CLI stand-in whose turns end at once
// (so that agent_finished and agent_error happen without a real CLI).

#include "agents/AgentProcess.h"
#include "agents/Provider.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WebhookReceiver.h"

#include <QTimer>

#include <memory>

namespace flotilla::test {

// Each message is a turn that ends at once; with an error when the message starts with "fail".
class OneShotProcess final : public AgentProcess {
    Q_OBJECT
public:
    using AgentProcess::AgentProcess;
    void start(const AgentLaunch &) override { m_running = true; }
    void sendUserMessage(const QString &text) override {
        QTimer::singleShot(0, this, [this, text] {
            AgentEvent e;
            e.kind = AgentEvent::Kind::TurnEnded;
            e.isError = text.startsWith(QLatin1String("fail"));
            e.text = (e.isError ? QStringLiteral("it broke: ") : QStringLiteral("done: ")) + text;
            Q_EMIT agentEvent(e);
        });
    }
    bool interruptTurn() override { return false; }
    void stop(int) override {
        m_running = false;
        Q_EMIT finished(0, 0, true);
    }
    bool isRunning() const override { return m_running; }
    qint64 pid() const override { return 0; }
    QString stderrTail() const override { return {}; }
    void answerPermission(const QString &, bool, const QString &) override {}

private:
    bool m_running = false;
};

// Registered as "codex", replacing the real one in the service it is added to.
class OneShotProvider final : public Provider {
public:
    QString name() const override { return QStringLiteral("codex"); }
    QString displayName() const override { return QStringLiteral("One-shot CLI"); }
    QString defaultModel() const override { return QStringLiteral("gpt-5.5"); } // Codex's
    QString program() const override { return QStringLiteral("one-shot"); }
    QString unavailableReason() const override { return {}; }
    AgentLaunch launch(const LaunchRequest &r) const override {
        AgentLaunch l;
        l.program = program();
        l.cwd = r.cwd;
        return l;
    }
    AgentProcess *createProcess(QObject *parent) const override {
        return new OneShotProcess(parent);
    }
    bool canResume(const QString &, const QString &) const override { return false; }
};

inline QString jsonString(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// One test's world. Retry waits 50-200 ms, a request unanswered for 300 ms has failed; adjust
// `notify` before boot().
struct NotifyRig {
    WebhookReceiver receiver;
    NotifyConfig notify = [] {
        NotifyConfig c;
        c.firstRetryMs = 50;
        c.maxRetryMs = 200;
        c.requestTimeoutMs = 300;
        return c;
    }();
    std::unique_ptr<TestService> service;
    HttpClient http;

    bool boot() {
        if (!receiver.start())
            return false;
        service = std::make_unique<TestService>([this](ServerConfig &c) { c.notify = notify; });
        if (!service->start())
            return false;
        service->app().providers().add(std::make_unique<OneShotProvider>());
        return true;
    }
    QUrl url(const QString &path) const { return service->url(path); }
    QUrl channelUrl(const QString &id, const QString &rest = {}) const {
        return url(QStringLiteral("/api/notification-channels/") + id + rest);
    }
    // POST /api/notification-channels for the receiver's `path`; the created channel.
    QJsonObject addChannel(const QString &path, const QJsonObject &extra = {}) {
        QJsonObject body = extra;
        body.insert(QStringLiteral("url"), receiver.url(path).toString());
        const HttpResponse r = http.post(url(QStringLiteral("/api/notification-channels")), body);
        if (r.status != 201)
            qWarning() << "channel not created" << r.status << r.body;
        return r.object();
    }
    QJsonObject channel(const QString &id) { return http.get(channelUrl(id)).object(); }
    QJsonArray deliveries(const QString &id) {
        return http.get(channelUrl(id, QStringLiteral("/deliveries"))).array();
    }
    int sendTest(const QString &id) {
        return http.post(channelUrl(id, QStringLiteral("/test")), {}).status;
    }
    QString addAgent(const QString &name, const QString &provider = QStringLiteral("codex")) {
        const HttpResponse r = http.post(url(QStringLiteral("/api/agents")),
                                         QJsonObject{{QStringLiteral("name"), name},
                                                     {QStringLiteral("cwd"), service->workDir()},
                                                     {QStringLiteral("provider"), provider}});
        return jsonString(r.object(), "id");
    }
    int notifyAs(const QString &agentId, const QString &title) {
        return http
            .post(url(QStringLiteral("/api/notify")),
                  QJsonObject{
                      {QStringLiteral("agentId"), agentId},
                      {QStringLiteral("title"), title},
                      {QStringLiteral("message"), QString(QStringLiteral("body of ") + title)}})
            .status;
    }
    int message(const QString &agentId, const QString &text) {
        return http
            .post(url(QStringLiteral("/api/agents/%1/message").arg(agentId)),
                  QJsonObject{{QStringLiteral("message"), text}})
            .status;
    }
    // Requests that arrived at `path`.
    QList<WebhookReceiver::Received> at(const QString &path) const {
        QList<WebhookReceiver::Received> out;
        for (const auto &r : receiver.received()) {
            if (r.request.target == path.toUtf8())
                out.append(r);
        }
        return out;
    }
};

} // namespace flotilla::test
