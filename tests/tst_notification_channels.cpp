// Outgoing notification channels (issue 13) against a real HTTP receiver on loopback: the
// routes and every refusal, each event kind in each format with its headers, the signature
// checked with the secret, retries while the receiver refuses, fails or hangs, failure after the
// last attempt, a full outbox, deletion dropping the outbox, and secrets never leaving.
// Retry waits are shortened (50-200 ms) through ServerConfig::notify. The crash side (SIGKILL of
// the real binary with items in the outbox) is tst_notification_outbox.

#include "agents/AgentProcess.h"
#include "agents/Provider.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WebhookReceiver.h"

#include <QLoggingCategory>
#include <QMessageAuthenticationCode>
#include <QNetworkReply>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTest>
#include <QTimer>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

QByteArray json(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// An agent CLI stand-in: each message is a turn that ends at once, with an error when the
// message starts with "fail".
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

// Registered as "codex", replacing the real one for this service.
class OneShotProvider final : public Provider {
public:
    QString name() const override { return QStringLiteral("codex"); }
    QString displayName() const override { return QStringLiteral("One-shot CLI"); }
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

const QStringList kEvents{QStringLiteral("agent_notification"),
                          QStringLiteral("permission_request"), QStringLiteral("agent_finished"),
                          QStringLiteral("agent_error")};

} // namespace

class TestNotificationChannels final : public QObject {
    Q_OBJECT

    std::unique_ptr<WebhookReceiver> m_receiver;
    std::unique_ptr<TestService> m_service;
    std::unique_ptr<HttpClient> m_http;
    std::unique_ptr<QNetworkAccessManager> m_nam; // requests the service holds (permission hooks)
    NotifyConfig m_notify;

    QUrl url(const QString &path) const { return m_service->url(path); }

    bool boot() {
        m_service = std::make_unique<TestService>(
            [notify = m_notify](ServerConfig &c) { c.notify = notify; });
        if (!m_service->start())
            return false;
        m_service->app().providers().add(std::make_unique<OneShotProvider>());
        return true;
    }
    QJsonObject addChannel(const QString &path, const QJsonObject &extra = {}) {
        QJsonObject body = extra;
        body.insert(QStringLiteral("url"), m_receiver->url(path).toString());
        const HttpResponse r =
            m_http->post(url(QStringLiteral("/api/notification-channels")), body);
        if (r.status != 201)
            qWarning() << "channel not created" << r.status << r.body;
        return r.object();
    }
    QJsonObject channel(const QString &id) {
        return m_http->get(url(QStringLiteral("/api/notification-channels/") + id)).object();
    }
    QJsonArray deliveries(const QString &id) {
        return m_http->get(url(QStringLiteral("/api/notification-channels/%1/deliveries").arg(id)))
            .array();
    }
    QString addAgent(const QString &name, const QString &provider = QStringLiteral("codex")) {
        const HttpResponse r =
            m_http->post(url(QStringLiteral("/api/agents")),
                         QJsonObject{{QStringLiteral("name"), name},
                                     {QStringLiteral("cwd"), m_service->workDir()},
                                     {QStringLiteral("provider"), provider}});
        return str(r.object(), "id");
    }
    int notify(const QString &agentId, const QString &title) {
        return m_http
            ->post(url(QStringLiteral("/api/notify")),
                   QJsonObject{
                       {QStringLiteral("agentId"), agentId},
                       {QStringLiteral("title"), title},
                       {QStringLiteral("message"), QString(QStringLiteral("body of ") + title)}})
            .status;
    }
    int message(const QString &agentId, const QString &text) {
        return m_http
            ->post(url(QStringLiteral("/api/agents/%1/message").arg(agentId)),
                   QJsonObject{{QStringLiteral("message"), text}})
            .status;
    }
    // The CLI's PermissionRequest hook; the service holds the answer until someone decides.
    void askPermission(const QString &agentId) {
        QNetworkRequest request(
            url(QStringLiteral("/api/agents/%1/permission-check").arg(agentId)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        m_nam->post(request,
                    json({{QStringLiteral("hook_event_name"), QStringLiteral("PermissionRequest")},
                          {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                          {QStringLiteral("tool_input"),
                           QJsonObject{{QStringLiteral("command"),
                                        QStringLiteral("echo s3cr3t-input")}}}}));
    }
    // Requests that arrived at `path`.
    QList<WebhookReceiver::Received> at(const QString &path) const {
        QList<WebhookReceiver::Received> out;
        for (const auto &r : m_receiver->received()) {
            if (r.request.target == path.toUtf8())
                out.append(r);
        }
        return out;
    }
    static void expectError(const HttpResponse &r, int status, const QString &code) {
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        QVERIFY(!str(r.object(), "error").isEmpty());
    }

private Q_SLOTS:
    void init() {
        m_notify = NotifyConfig{};
        m_notify.firstRetryMs = 50;
        m_notify.maxRetryMs = 200;
        m_notify.requestTimeoutMs = 300;
        m_receiver = std::make_unique<WebhookReceiver>();
        QVERIFY(m_receiver->start());
        m_http = std::make_unique<HttpClient>();
        m_nam = std::make_unique<QNetworkAccessManager>();
    }
    void cleanup() {
        m_service.reset();
        m_nam.reset();
        m_http.reset();
        m_receiver.reset();
    }

    void createListGetDelete() {
        QVERIFY(boot());
        const QString secret = QStringLiteral("hmac-key-that-never-leaves");
        const QJsonObject created =
            addChannel(QStringLiteral("/a"),
                       {{QStringLiteral("name"), QStringLiteral("phone")},
                        {QStringLiteral("format"), QStringLiteral("ntfy")},
                        {QStringLiteral("events"), QJsonArray{QStringLiteral("agent_error")}},
                        {QStringLiteral("secret"), secret}});
        const QString id = str(created, "id");
        QVERIFY(!id.isEmpty());
        QCOMPARE(str(created, "name"), QStringLiteral("phone"));
        QCOMPARE(str(created, "format"), QStringLiteral("ntfy"));
        QCOMPARE(created.value(QLatin1String("events")).toArray(),
                 QJsonArray{QStringLiteral("agent_error")});
        QCOMPARE(created.value(QLatin1String("hasSecret")).toBool(), true);
        QVERIFY(created.value(QLatin1String("lastDeliveredAt")).isNull());
        QVERIFY(created.value(QLatin1String("lastError")).isNull());
        QCOMPARE(created.value(QLatin1String("pending")).toInt(-1), 0);
        QCOMPARE(created.value(QLatin1String("failed")).toInt(-1), 0);
        QVERIFY(!created.contains(QLatin1String("secret")));

        // Defaults: json, every event, no secret.
        const QJsonObject plain = addChannel(QStringLiteral("/b"));
        QCOMPARE(str(plain, "format"), QStringLiteral("json"));
        QCOMPARE(plain.value(QLatin1String("events")).toArray(),
                 QJsonArray::fromStringList(kEvents));
        QCOMPARE(plain.value(QLatin1String("hasSecret")).toBool(), false);

        const HttpResponse list = m_http->get(url(QStringLiteral("/api/notification-channels")));
        QCOMPARE(list.status, 200);
        QCOMPARE(list.array().size(), 2);
        QCOMPARE(list.array().at(0).toObject(), created);
        const HttpResponse one =
            m_http->get(url(QStringLiteral("/api/notification-channels/") + id));
        QCOMPARE(one.object(), created);
        for (const QByteArray &body : {list.body, one.body})
            QVERIFY(!body.contains(secret.toUtf8()));

        // A password in the URL is a secret too: used, never shown.
        const QJsonObject withPassword = [&] {
            QUrl u = m_receiver->url(QStringLiteral("/c"));
            u.setUserInfo(QStringLiteral("me:pa55word"));
            return m_http
                ->post(url(QStringLiteral("/api/notification-channels")),
                       QJsonObject{{QStringLiteral("url"), u.toString()}})
                .object();
        }();
        QVERIFY(!str(withPassword, "url").contains(QLatin1String("pa55word")));
        QVERIFY(str(withPassword, "url").contains(QLatin1String("me@")));

        QCOMPARE(m_http->del(url(QStringLiteral("/api/notification-channels/") + id)).status, 204);
        expectError(m_http->get(url(QStringLiteral("/api/notification-channels/") + id)), 404,
                    QStringLiteral("not_found"));
        expectError(m_http->del(url(QStringLiteral("/api/notification-channels/") + id)), 404,
                    QStringLiteral("not_found"));
        expectError(
            m_http->post(url(QStringLiteral("/api/notification-channels/%1/test").arg(id)), {}),
            404, QStringLiteral("not_found"));
        expectError(
            m_http->get(url(QStringLiteral("/api/notification-channels/%1/deliveries").arg(id))),
            404, QStringLiteral("not_found"));
        QCOMPARE(m_http->get(url(QStringLiteral("/api/notification-channels"))).array().size(), 2);
    }

    void refusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        const QString ok = QStringLiteral("http://127.0.0.1:9/hook");
        auto with = [&](const QJsonObject &o) {
            QJsonObject b{{QStringLiteral("url"), ok}};
            for (auto it = o.begin(); it != o.end(); ++it)
                b.insert(it.key(), it.value());
            return json(b);
        };
        auto urlOf = [&](const QJsonValue &v) { return with({{QStringLiteral("url"), v}}); };
        QTest::newRow("not json") << QByteArray("{url:") << 400 << "bad_json";
        QTest::newRow("empty body") << QByteArray() << 400 << "bad_json";
        QTest::newRow("array body") << QByteArray("[]") << 400 << "bad_json";
        QTest::newRow("missing url") << json({}) << 400 << "missing_field";
        QTest::newRow("url not string") << urlOf(5) << 400 << "wrong_type";
        QTest::newRow("url ftp") << urlOf(QStringLiteral("ftp://example.org/x")) << 422
                                 << "invalid_value";
        QTest::newRow("url file") << urlOf(QStringLiteral("file:///etc/passwd")) << 422
                                  << "invalid_value";
        QTest::newRow("url relative")
            << urlOf(QStringLiteral("example.org/hook")) << 422 << "invalid_value";
        QTest::newRow("url without host")
            << urlOf(QStringLiteral("http:///hook")) << 422 << "invalid_value";
        QTest::newRow("url malformed")
            << urlOf(QStringLiteral("http://exa mple.org/")) << 422 << "invalid_value";
        QTest::newRow("url too long") << urlOf(QString(QStringLiteral("http://example.org/") +
                                                       QString(2100, QLatin1Char('a'))))
                                      << 422 << "invalid_value";
        QTest::newRow("format unknown")
            << with({{QStringLiteral("format"), QStringLiteral("xml")}}) << 422 << "invalid_value";
        QTest::newRow("format not string")
            << with({{QStringLiteral("format"), true}}) << 400 << "wrong_type";
        QTest::newRow("events not array")
            << with({{QStringLiteral("events"), QStringLiteral("agent_error")}}) << 400
            << "wrong_type";
        QTest::newRow("events holds a number")
            << with({{QStringLiteral("events"), QJsonArray{1}}}) << 400 << "wrong_type";
        QTest::newRow("events unknown")
            << with({{QStringLiteral("events"), QJsonArray{QStringLiteral("agent_started")}}})
            << 422 << "invalid_value";
        QTest::newRow("events test") // test deliveries come from the /test route only
            << with({{QStringLiteral("events"), QJsonArray{QStringLiteral("test")}}}) << 422
            << "invalid_value";
        QTest::newRow("events empty")
            << with({{QStringLiteral("events"), QJsonArray{}}}) << 422 << "invalid_value";
        QTest::newRow("secret not string")
            << with({{QStringLiteral("secret"), 42}}) << 400 << "wrong_type";
        QTest::newRow("secret empty")
            << with({{QStringLiteral("secret"), QString()}}) << 422 << "invalid_value";
        QTest::newRow("secret too long")
            << with({{QStringLiteral("secret"), QString(1025, QLatin1Char('s'))}}) << 422
            << "invalid_value";
        QTest::newRow("name not string")
            << with({{QStringLiteral("name"), QJsonArray{}}}) << 400 << "wrong_type";
        QTest::newRow("name too long")
            << with({{QStringLiteral("name"), QString(101, QLatin1Char('n'))}}) << 422
            << "invalid_value";
        QTest::newRow("unknown field")
            << with({{QStringLiteral("headers"), QJsonObject{}}}) << 422 << "unknown_field";
    }
    void refusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        QVERIFY(boot());
        expectError(m_http->send("POST", url(QStringLiteral("/api/notification-channels")), body,
                                 {{"Content-Type", "application/json"}}),
                    status, code);
        QCOMPARE(m_http->get(url(QStringLiteral("/api/notification-channels"))).array().size(), 0);
    }

    void tooManyChannels() {
        QVERIFY(boot());
        for (int i = 0; i < 32; ++i)
            QVERIFY(!str(addChannel(QStringLiteral("/%1").arg(i)), "id").isEmpty());
        expectError(
            m_http->post(url(QStringLiteral("/api/notification-channels")),
                         QJsonObject{{QStringLiteral("url"), m_receiver->url().toString()}}),
            409, QStringLiteral("too_many_channels"));
        expectError(m_http->get(url(QStringLiteral("/api/notification-channels/x/deliveries"
                                                   "?limit=0"))),
                    422, QStringLiteral("invalid_value"));
    }

    void deliversEachEvent_data() {
        QTest::addColumn<QString>("event");
        QTest::addColumn<QString>("format");
        for (const QString &event : kEvents) {
            for (const char *format : {"json", "ntfy", "slack"})
                QTest::addRow("%s %s", qPrintable(event), format)
                    << event << QString::fromLatin1(format);
        }
    }
    // Channel /a wants only `event`; channel /b wants every other one. One event: /a gets it
    // once, in its format, with the delivery headers; /b gets nothing (its test delivery, sent
    // after, is the first thing it receives).
    void deliversEachEvent() {
        QFETCH(QString, event);
        QFETCH(QString, format);
        QVERIFY(boot());
        QStringList others = kEvents;
        others.removeAll(event);
        const QString a =
            str(addChannel(QStringLiteral("/a"), {{QStringLiteral("format"), format},
                                                  {QStringLiteral("events"), QJsonArray{event}}}),
                "id");
        const QString b =
            str(addChannel(QStringLiteral("/b"),
                           {{QStringLiteral("events"), QJsonArray::fromStringList(others)}}),
                "id");
        const QString agent = addAgent(QStringLiteral("Scout"));
        QVERIFY(!a.isEmpty() && !b.isEmpty() && !agent.isEmpty());

        if (event == QLatin1String("agent_notification"))
            QCOMPARE(notify(agent, QStringLiteral("Build done")), 201);
        else if (event == QLatin1String("permission_request"))
            askPermission(agent);
        else
            QCOMPARE(message(agent, event == QLatin1String("agent_error") ? QStringLiteral("fail")
                                                                          : QStringLiteral("go")),
                     200);
        QTRY_COMPARE(at(QStringLiteral("/a")).size(), 1);
        QCOMPARE(m_http->post(url(QStringLiteral("/api/notification-channels/%1/test").arg(b)), {})
                     .status,
                 202);
        QTRY_COMPARE(at(QStringLiteral("/b")).size(), 1);
        QCOMPARE(at(QStringLiteral("/b")).at(0).header("x-flotilla-event"), QByteArray("test"));
        QCOMPARE(at(QStringLiteral("/a")).size(), 1);

        const WebhookReceiver::Received got = at(QStringLiteral("/a")).at(0);
        QCOMPARE(got.request.method, QByteArray("POST"));
        QCOMPARE(got.header("x-flotilla-event"), event.toUtf8());
        QVERIFY(!got.deliveryId().isEmpty());
        QVERIFY(got.header("x-flotilla-timestamp").toLongLong() > 1'600'000'000'000);
        QVERIFY(!got.request.headers.contains("x-flotilla-signature")); // no secret
        QVERIFY(!got.request.body.contains("s3cr3t-input"));            // toolInput stays home
        QTRY_VERIFY(channel(a).value(QLatin1String("lastDeliveredAt")).toInteger() > 0);
        QCOMPARE(channel(a).value(QLatin1String("pending")).toInt(-1), 0);

        QString title;
        QString text;
        if (format == QLatin1String("json")) {
            QCOMPARE(got.header("content-type"), QByteArray("application/json"));
            const QJsonObject body = QJsonDocument::fromJson(got.request.body).object();
            QCOMPARE(str(body, "id").toUtf8(), got.deliveryId());
            QCOMPARE(str(body, "event"), event);
            QVERIFY(body.value(QLatin1String("timestamp")).toInteger() > 1'600'000'000'000);
            const QJsonObject payload = body.value(QLatin1String("payload")).toObject();
            QCOMPARE(str(payload, "agentId"), agent);
            QCOMPARE(str(payload, "agentName"), QStringLiteral("Scout"));
            if (event == QLatin1String("agent_notification")) {
                QCOMPARE(str(payload, "title"), QStringLiteral("Build done"));
                QCOMPARE(str(payload, "message"), QStringLiteral("body of Build done"));
            } else if (event == QLatin1String("permission_request")) {
                QCOMPARE(str(payload, "tool"), QStringLiteral("Bash"));
                QVERIFY(!payload.contains(QLatin1String("toolInput")));
            } else if (event == QLatin1String("agent_finished")) {
                QCOMPARE(str(payload, "result"), QStringLiteral("done: go"));
            } else {
                QCOMPARE(str(payload, "error"), QStringLiteral("it broke: fail"));
            }
            return;
        }
        if (format == QLatin1String("ntfy")) {
            QCOMPARE(got.header("content-type"), QByteArray("text/plain; charset=utf-8"));
            title = QString::fromUtf8(got.header("title"));
            text = QString::fromUtf8(got.request.body);
            const bool urgent = event == QLatin1String("permission_request") ||
                                event == QLatin1String("agent_error");
            QCOMPARE(got.header("priority"), urgent ? QByteArray("high") : QByteArray("default"));
            QVERIFY(!got.header("tags").isEmpty());
        } else {
            QCOMPARE(got.header("content-type"), QByteArray("application/json"));
            const QJsonObject body = QJsonDocument::fromJson(got.request.body).object();
            QCOMPARE(body.keys(), QStringList{QStringLiteral("text")});
            const QStringList lines = str(body, "text").split(QLatin1Char('\n'));
            title = lines.value(0);
            text = lines.mid(1).join(QLatin1Char('\n'));
            QVERIFY(title.startsWith(QLatin1Char('*')) && title.endsWith(QLatin1Char('*')));
        }
        QVERIFY2(title.contains(QLatin1String("Scout")), qPrintable(title));
        if (event == QLatin1String("agent_notification")) {
            QVERIFY(title.contains(QLatin1String("Build done")));
            QCOMPARE(text, QStringLiteral("body of Build done"));
        } else if (event == QLatin1String("permission_request")) {
            QVERIFY(title.contains(QLatin1String("Bash")));
        } else if (event == QLatin1String("agent_finished")) {
            QCOMPARE(text, QStringLiteral("done: go"));
        } else {
            QCOMPARE(text, QStringLiteral("it broke: fail"));
        }
    }

    // A message refused at once (no Claude CLI here) makes the agent's status error too.
    void refusedMessageIsAnAgentError() {
        QVERIFY(boot());
        addChannel(QStringLiteral("/a"),
                   {{QStringLiteral("events"), QJsonArray{QStringLiteral("agent_error")}}});
        const QString agent = addAgent(QStringLiteral("NoCli"), QStringLiteral("claude"));
        QCOMPARE(message(agent, QStringLiteral("hello")), 503);
        QTRY_COMPARE(m_receiver->count(), 1);
        const QJsonObject body =
            QJsonDocument::fromJson(m_receiver->received().at(0).request.body).object();
        QCOMPARE(str(body, "event"), QStringLiteral("agent_error"));
        QVERIFY(!str(body.value(QLatin1String("payload")).toObject(), "error").isEmpty());
    }

    // The receiver recomputes X-Flotilla-Signature over "<timestamp>.<body>" with the secret.
    // Neither the secret nor the URL's path shows in the log.
    void signatureVerifies() {
        static QStringList logged;
        logged.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("flotilla.*.debug=true"));
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext &, const QString &m) { logged.append(m); });
        QVERIFY(boot());
        const QString secret = QStringLiteral("k3y-\u00e9-only-we-know");
        const QString id = str(
            addChannel(QStringLiteral("/private-path-token"), {{QStringLiteral("secret"), secret}}),
            "id");
        QCOMPARE(m_http->post(url(QStringLiteral("/api/notification-channels/%1/test").arg(id)), {})
                     .status,
                 202);
        QTRY_COMPARE(m_receiver->count(), 1);
        qInstallMessageHandler(previous);
        QLoggingCategory::setFilterRules(QString());

        const WebhookReceiver::Received got = m_receiver->received().at(0);
        const QByteArray timestamp = got.header("x-flotilla-timestamp");
        QMessageAuthenticationCode mac(QCryptographicHash::Sha256, secret.toUtf8());
        mac.addData(timestamp + '.' + got.request.body);
        QCOMPARE(got.header("x-flotilla-signature"), QByteArray("sha256=") + mac.result().toHex());
        // Any other body or timestamp does not verify.
        QMessageAuthenticationCode other(QCryptographicHash::Sha256, secret.toUtf8());
        other.addData(got.request.body);
        QVERIFY(got.header("x-flotilla-signature") != "sha256=" + other.result().toHex());

        QVERIFY(!logged.isEmpty());
        for (const QString &line : std::as_const(logged)) {
            QVERIFY2(!line.contains(secret), qPrintable(line));
            QVERIFY2(!line.contains(QLatin1String("private-path-token")), qPrintable(line));
        }
    }

    void testRoute() {
        QVERIFY(boot());
        const QString id =
            str(addChannel(QStringLiteral("/t"),
                           {{QStringLiteral("events"), QJsonArray{QStringLiteral("agent_error")}}}),
                "id");
        const HttpResponse r =
            m_http->post(url(QStringLiteral("/api/notification-channels/%1/test").arg(id)), {});
        QCOMPARE(r.status, 202);
        const QString deliveryId = str(r.object(), "deliveryId");
        QVERIFY(!deliveryId.isEmpty());
        QTRY_COMPARE(m_receiver->count(), 1);
        const WebhookReceiver::Received got = m_receiver->received().at(0);
        QCOMPARE(got.deliveryId(), deliveryId.toUtf8());
        QCOMPARE(got.header("x-flotilla-event"), QByteArray("test"));
        QCOMPARE(str(QJsonDocument::fromJson(got.request.body).object(), "event"),
                 QStringLiteral("test"));
        expectError(m_http->post(url(QStringLiteral("/api/notification-channels/nope/test")), {}),
                    404, QStringLiteral("not_found"));
    }

    // While the receiver refuses connections, answers 500 or does not answer, the item stays
    // pending with lastError and is retried under the same delivery id; once the receiver
    // answers 200 it is delivered exactly once (as far as 2xx answers go).
    void retriesUntilTheReceiverIsBack_data() {
        QTest::addColumn<int>("mode"); // -1: stopped
        QTest::addColumn<QString>("error");
        QTest::newRow("refused") << -1 << QStringLiteral("connection refused");
        QTest::newRow("500") << int(WebhookReceiver::Mode::Fail)
                             << QStringLiteral("HTTP 500 Internal Server Error");
        QTest::newRow("hangs") << int(WebhookReceiver::Mode::Hang)
                               << QStringLiteral("no answer within 300 ms");
    }
    void retriesUntilTheReceiverIsBack() {
        QFETCH(int, mode);
        QFETCH(QString, error);
        QVERIFY(boot());
        const QString id = str(addChannel(QStringLiteral("/r")), "id");
        const QString agent = addAgent(QStringLiteral("Retry"));
        if (mode < 0)
            m_receiver->stop();
        else
            m_receiver->setMode(WebhookReceiver::Mode(mode));
        QCOMPARE(notify(agent, QStringLiteral("later")), 201);

        QTRY_VERIFY(deliveries(id).at(0).toObject().value(QLatin1String("attempts")).toInt() >= 3);
        QJsonObject status = channel(id);
        QCOMPARE(status.value(QLatin1String("pending")).toInt(), 1);
        QCOMPARE(str(status, "lastError"), error);
        QVERIFY(status.value(QLatin1String("lastDeliveredAt")).isNull());
        const QJsonObject item = deliveries(id).at(0).toObject();
        QCOMPARE(str(item, "state"), QStringLiteral("pending"));
        QCOMPARE(str(item, "event"), QStringLiteral("agent_notification"));
        QCOMPARE(str(item, "lastError"), error);
        QVERIFY(item.value(QLatin1String("nextAttemptAt")).toInteger() > 0);

        m_receiver->setMode(WebhookReceiver::Mode::Ok);
        if (mode < 0)
            QVERIFY(m_receiver->start());
        QTRY_COMPARE(m_receiver->acceptedIds().size(), 1);
        QTRY_COMPARE(channel(id).value(QLatin1String("pending")).toInt(-1), 0);
        status = channel(id);
        QVERIFY(status.value(QLatin1String("lastError")).isNull());
        QVERIFY(status.value(QLatin1String("lastDeliveredAt")).toInteger() > 0);
        QCOMPARE(deliveries(id).size(), 0);
        QCOMPARE(m_receiver->acceptedDuplicates(), 0);
        for (const auto &r : m_receiver->received()) // every attempt: the same delivery id
            QCOMPARE(r.deliveryId(), *m_receiver->acceptedIds().cbegin());
        if (mode >= 0)
            QVERIFY(m_receiver->count() >= 3);
    }

    // After maxAttempts the item is failed: kept, listed, counted, never sent again.
    void failsAfterTheLastAttempt() {
        m_notify.maxAttempts = 3;
        QVERIFY(boot());
        const QString id = str(addChannel(QStringLiteral("/f")), "id");
        const QString agent = addAgent(QStringLiteral("Doomed"));
        m_receiver->setMode(WebhookReceiver::Mode::Fail);
        QCOMPARE(notify(agent, QStringLiteral("lost")), 201);
        QTRY_COMPARE(channel(id).value(QLatin1String("failed")).toInt(), 1);
        QCOMPARE(channel(id).value(QLatin1String("pending")).toInt(), 0);
        QCOMPARE(m_receiver->count(), 3);
        const QJsonObject item = deliveries(id).at(0).toObject();
        QCOMPARE(str(item, "state"), QStringLiteral("failed"));
        QCOMPARE(item.value(QLatin1String("attempts")).toInt(), 3);
        QCOMPARE(str(item, "lastError"), QStringLiteral("HTTP 500 Internal Server Error"));
        QVERIFY(item.value(QLatin1String("nextAttemptAt")).isNull());
        QCOMPARE(item.value(QLatin1String("id")).toString().toUtf8(),
                 m_receiver->received().at(0).deliveryId());

        // The receiver is back: a new delivery goes through, the failed one stays failed.
        m_receiver->setMode(WebhookReceiver::Mode::Ok);
        QCOMPARE(m_http->post(url(QStringLiteral("/api/notification-channels/%1/test").arg(id)), {})
                     .status,
                 202);
        QTRY_COMPARE(m_receiver->acceptedIds().size(), 1);
        QCOMPARE(m_receiver->count(), 4);
        QCOMPARE(channel(id).value(QLatin1String("failed")).toInt(), 1);
    }

    // Past maxPendingPerChannel the oldest pending items are failed ("outbox full").
    void fullOutboxFailsTheOldest() {
        m_notify.maxPendingPerChannel = 2;
        QVERIFY(boot());
        const QString id = str(addChannel(QStringLiteral("/o")), "id");
        const QString agent = addAgent(QStringLiteral("Chatty"));
        m_receiver->stop();
        for (int i = 0; i < 3; ++i)
            QCOMPARE(notify(agent, QStringLiteral("n%1").arg(i)), 201);
        QJsonObject status = channel(id);
        QCOMPARE(status.value(QLatin1String("pending")).toInt(), 2);
        QCOMPARE(status.value(QLatin1String("failed")).toInt(), 1);
        const QJsonArray items = deliveries(id); // newest first
        QCOMPARE(items.size(), 3);
        QCOMPARE(str(items.at(2).toObject(), "state"), QStringLiteral("failed"));
        QVERIFY(str(items.at(2).toObject(), "lastError").startsWith(QLatin1String("outbox full")));
        QVERIFY(m_receiver->start());
        QTRY_COMPARE(m_receiver->acceptedIds().size(), 2);
        QTRY_COMPARE(channel(id).value(QLatin1String("pending")).toInt(-1), 0);
    }

    // DELETE drops the channel's outbox in the same transaction.
    void deleteDropsTheOutbox() {
        QVERIFY(boot());
        const QString id = str(addChannel(QStringLiteral("/d")), "id");
        const QString agent = addAgent(QStringLiteral("Gone"));
        m_receiver->stop();
        QCOMPARE(notify(agent, QStringLiteral("never")), 201);
        QCOMPARE(channel(id).value(QLatin1String("pending")).toInt(), 1);
        QCOMPARE(m_http->del(url(QStringLiteral("/api/notification-channels/") + id)).status, 204);
        const QString conn = QStringLiteral("tst_notification_channels");
        {
            QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), conn);
            db.setDatabaseName(m_service->app().config().dataDir + QStringLiteral("/flotilla.db"));
            QVERIFY(db.open());
            QSqlQuery q(db);
            QVERIFY(q.exec(QStringLiteral("SELECT COUNT(*) FROM notification_outbox")));
            QVERIFY(q.next());
            QCOMPARE(q.value(0).toInt(), 0);
        }
        QSqlDatabase::removeDatabase(conn);
    }
};

QTEST_GUILESS_MAIN(TestNotificationChannels)
#include "tst_notification_channels.moc"
