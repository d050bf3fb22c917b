// Outgoing notification channels against a real HTTP receiver on loopback: the
// routes and every refusal, each event kind in each format with its headers, the signature
// checked with the secret, the test route, and secrets never leaving. The outbox (retries,
// failure after the last attempt, a full outbox, SIGKILL) is tst_notification_outbox.

#include "notify/Deliverer.h"
#include "support/NotifyFixture.h"

#include <QLoggingCategory>
#include <QMessageAuthenticationCode>
#include <QNetworkReply>
#include <QSet>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QByteArray json(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

const QStringList kEvents{QStringLiteral("agent_notification"),
                          QStringLiteral("permission_request"), QStringLiteral("agent_finished"),
                          QStringLiteral("agent_error")};

} // namespace

class TestNotificationChannels final : public QObject {
    Q_OBJECT

    std::unique_ptr<NotifyRig> m_rig;
    // Holds the permission hooks' requests the service answers only when someone decides.
    std::unique_ptr<QNetworkAccessManager> m_nam = std::make_unique<QNetworkAccessManager>();

    // The CLI's PermissionRequest hook for `agentId`.
    void askPermission(const QString &agentId) {
        if (!m_nam)
            m_nam = std::make_unique<QNetworkAccessManager>();
        QNetworkRequest request(
            m_rig->url(QStringLiteral("/api/agents/%1/permission-check").arg(agentId)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        m_nam->post(request,
                    json({{QStringLiteral("hook_event_name"), QStringLiteral("PermissionRequest")},
                          {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                          {QStringLiteral("tool_input"),
                           QJsonObject{{QStringLiteral("command"),
                                        QStringLiteral("echo s3cr3t-input")}}}}));
    }
    static void expectError(const HttpResponse &r, int status, const QString &code) {
        QCOMPARE(r.status, status);
        QCOMPARE(jsonString(r.object(), "code"), code);
        QVERIFY(!jsonString(r.object(), "error").isEmpty());
    }

private Q_SLOTS:
    void init() { m_rig = std::make_unique<NotifyRig>(); }
    void cleanup() {
        m_rig.reset();
        m_nam.reset();
    }

    void createListGetDelete() {
        QVERIFY(m_rig->boot());
        const QString secret = QStringLiteral("hmac-key-that-never-leaves");
        const QJsonObject created = m_rig->addChannel(
            QStringLiteral("/a"),
            {{QStringLiteral("name"), QStringLiteral("phone")},
             {QStringLiteral("format"), QStringLiteral("ntfy")},
             {QStringLiteral("events"), QJsonArray{QStringLiteral("agent_error")}},
             {QStringLiteral("secret"), secret}});
        const QString id = jsonString(created, "id");
        QVERIFY(!id.isEmpty());
        QCOMPARE(jsonString(created, "name"), QStringLiteral("phone"));
        QCOMPARE(jsonString(created, "format"), QStringLiteral("ntfy"));
        QCOMPARE(created.value(QLatin1String("events")).toArray(),
                 QJsonArray{QStringLiteral("agent_error")});
        QCOMPARE(created.value(QLatin1String("hasSecret")).toBool(), true);
        QVERIFY(created.value(QLatin1String("lastDeliveredAt")).isNull());
        QVERIFY(created.value(QLatin1String("lastError")).isNull());
        QCOMPARE(created.value(QLatin1String("pending")).toInt(-1), 0);
        QCOMPARE(created.value(QLatin1String("failed")).toInt(-1), 0);
        QVERIFY(!created.contains(QLatin1String("secret")));

        // Defaults: json, every event, no secret.
        const QJsonObject plain = m_rig->addChannel(QStringLiteral("/b"));
        QCOMPARE(jsonString(plain, "format"), QStringLiteral("json"));
        QCOMPARE(plain.value(QLatin1String("events")).toArray(),
                 QJsonArray::fromStringList(kEvents));
        QCOMPARE(plain.value(QLatin1String("hasSecret")).toBool(), false);

        const HttpResponse list =
            m_rig->http.get(m_rig->url(QStringLiteral("/api/notification-channels")));
        QCOMPARE(list.status, 200);
        QCOMPARE(list.array().size(), 2);
        QCOMPARE(list.array().at(0).toObject(), created);
        const HttpResponse one = m_rig->http.get(m_rig->channelUrl(id));
        QCOMPARE(one.object(), created);
        for (const QByteArray &body : {list.body, one.body})
            QVERIFY(!body.contains(secret.toUtf8()));

        // A password in the URL is a secret too: used, never shown.
        const QJsonObject withPassword = [&] {
            QUrl u = m_rig->receiver.url(QStringLiteral("/c"));
            u.setUserInfo(QStringLiteral("me:pa55word"));
            return m_rig->http
                .post(m_rig->url(QStringLiteral("/api/notification-channels")),
                      QJsonObject{{QStringLiteral("url"), u.toString()}})
                .object();
        }();
        QVERIFY(!jsonString(withPassword, "url").contains(QLatin1String("pa55word")));
        QVERIFY(jsonString(withPassword, "url").contains(QLatin1String("me@")));

        QCOMPARE(m_rig->http.del(m_rig->channelUrl(id)).status, 204);
        expectError(m_rig->http.get(m_rig->channelUrl(id)), 404, QStringLiteral("not_found"));
        expectError(m_rig->http.del(m_rig->channelUrl(id)), 404, QStringLiteral("not_found"));
        expectError(m_rig->http.post(m_rig->channelUrl(id, QStringLiteral("/test")), {}), 404,
                    QStringLiteral("not_found"));
        expectError(m_rig->http.get(m_rig->channelUrl(id, QStringLiteral("/deliveries"))), 404,
                    QStringLiteral("not_found"));
        QCOMPARE(m_rig->http.get(m_rig->url(QStringLiteral("/api/notification-channels")))
                     .array()
                     .size(),
                 2);
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
        QVERIFY(m_rig->boot());
        expectError(m_rig->http.send("POST",
                                     m_rig->url(QStringLiteral("/api/notification-channels")), body,
                                     {{"Content-Type", "application/json"}}),
                    status, code);
        QCOMPARE(m_rig->http.get(m_rig->url(QStringLiteral("/api/notification-channels")))
                     .array()
                     .size(),
                 0);
    }

    void tooManyChannels() {
        QVERIFY(m_rig->boot());
        for (int i = 0; i < 32; ++i)
            QVERIFY(!jsonString(m_rig->addChannel(QStringLiteral("/%1").arg(i)), "id").isEmpty());
        expectError(m_rig->http.post(
                        m_rig->url(QStringLiteral("/api/notification-channels")),
                        QJsonObject{{QStringLiteral("url"), m_rig->receiver.url().toString()}}),
                    409, QStringLiteral("too_many_channels"));
        expectError(
            m_rig->http.get(m_rig->url(QStringLiteral("/api/notification-channels/x/deliveries"
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
        QVERIFY(m_rig->boot());
        QStringList others = kEvents;
        others.removeAll(event);
        const QString a =
            jsonString(m_rig->addChannel(QStringLiteral("/a"),
                                         {{QStringLiteral("format"), format},
                                          {QStringLiteral("events"), QJsonArray{event}}}),
                       "id");
        const QString b = jsonString(
            m_rig->addChannel(QStringLiteral("/b"),
                              {{QStringLiteral("events"), QJsonArray::fromStringList(others)}}),
            "id");
        const QString agent = m_rig->addAgent(QStringLiteral("Scout"));
        QVERIFY(!a.isEmpty() && !b.isEmpty() && !agent.isEmpty());

        if (event == QLatin1String("agent_notification"))
            QCOMPARE(m_rig->notifyAs(agent, QStringLiteral("Build done")), 201);
        else if (event == QLatin1String("permission_request"))
            askPermission(agent);
        else
            QCOMPARE(m_rig->message(agent, event == QLatin1String("agent_error")
                                               ? QStringLiteral("fail")
                                               : QStringLiteral("go")),
                     200);
        QTRY_COMPARE(m_rig->at(QStringLiteral("/a")).size(), 1);
        QCOMPARE(m_rig->sendTest(b), 202);
        QTRY_COMPARE(m_rig->at(QStringLiteral("/b")).size(), 1);
        QCOMPARE(m_rig->at(QStringLiteral("/b")).at(0).header("x-flotilla-event"),
                 QByteArray("test"));
        QCOMPARE(m_rig->at(QStringLiteral("/a")).size(), 1);

        const WebhookReceiver::Received got = m_rig->at(QStringLiteral("/a")).at(0);
        QCOMPARE(got.request.method, QByteArray("POST"));
        QCOMPARE(got.header("x-flotilla-event"), event.toUtf8());
        QVERIFY(!got.deliveryId().isEmpty());
        QVERIFY(got.header("x-flotilla-timestamp").toLongLong() > 1'600'000'000'000);
        QVERIFY(!got.request.headers.contains("x-flotilla-signature")); // no secret
        QVERIFY(!got.request.body.contains("s3cr3t-input"));            // toolInput stays home
        QTRY_VERIFY(m_rig->channel(a).value(QLatin1String("lastDeliveredAt")).toInteger() > 0);
        QCOMPARE(m_rig->channel(a).value(QLatin1String("pending")).toInt(-1), 0);

        QString title;
        QString text;
        if (format == QLatin1String("json")) {
            QCOMPARE(got.header("content-type"), QByteArray("application/json"));
            const QJsonObject body = QJsonDocument::fromJson(got.request.body).object();
            QCOMPARE(jsonString(body, "id").toUtf8(), got.deliveryId());
            QCOMPARE(jsonString(body, "event"), event);
            QVERIFY(body.value(QLatin1String("timestamp")).toInteger() > 1'600'000'000'000);
            const QJsonObject payload = body.value(QLatin1String("payload")).toObject();
            QCOMPARE(jsonString(payload, "agentId"), agent);
            QCOMPARE(jsonString(payload, "agentName"), QStringLiteral("Scout"));
            if (event == QLatin1String("agent_notification")) {
                QCOMPARE(jsonString(payload, "title"), QStringLiteral("Build done"));
                QCOMPARE(jsonString(payload, "message"), QStringLiteral("body of Build done"));
            } else if (event == QLatin1String("permission_request")) {
                QCOMPARE(jsonString(payload, "tool"), QStringLiteral("Bash"));
                QVERIFY(!payload.contains(QLatin1String("toolInput")));
            } else if (event == QLatin1String("agent_finished")) {
                QCOMPARE(jsonString(payload, "result"), QStringLiteral("done: go"));
            } else {
                QCOMPARE(jsonString(payload, "error"), QStringLiteral("it broke: fail"));
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
            const QStringList lines = jsonString(body, "text").split(QLatin1Char('\n'));
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
        QVERIFY(m_rig->boot());
        m_rig->addChannel(QStringLiteral("/a"),
                          {{QStringLiteral("events"), QJsonArray{QStringLiteral("agent_error")}}});
        const QString agent = m_rig->addAgent(QStringLiteral("NoCli"), QStringLiteral("claude"));
        QCOMPARE(m_rig->message(agent, QStringLiteral("hello")), 503);
        QTRY_COMPARE(m_rig->receiver.count(), 1);
        const QJsonObject body =
            QJsonDocument::fromJson(m_rig->receiver.received().at(0).request.body).object();
        QCOMPARE(jsonString(body, "event"), QStringLiteral("agent_error"));
        QVERIFY(!jsonString(body.value(QLatin1String("payload")).toObject(), "error").isEmpty());
    }

    // The receiver recomputes X-Flotilla-Signature over "<timestamp>.<body>" with the secret.
    // Neither the secret nor the URL's path shows in the log.
    void signatureVerifies() {
        static QStringList logged;
        logged.clear();
        QLoggingCategory::setFilterRules(QStringLiteral("flotilla.*.debug=true"));
        const QtMessageHandler previous = qInstallMessageHandler(
            [](QtMsgType, const QMessageLogContext &, const QString &m) { logged.append(m); });
        QVERIFY(m_rig->boot());
        const QString secret = QStringLiteral("k3y-\u00e9-only-we-know");
        const QString id = jsonString(m_rig->addChannel(QStringLiteral("/private-path-token"),
                                                        {{QStringLiteral("secret"), secret}}),
                                      "id");
        QCOMPARE(m_rig->sendTest(id), 202);
        QTRY_COMPARE(m_rig->receiver.count(), 1);
        qInstallMessageHandler(previous);
        QLoggingCategory::setFilterRules(QString());

        const WebhookReceiver::Received got = m_rig->receiver.received().at(0);
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
        QVERIFY(m_rig->boot());
        const QString id = jsonString(
            m_rig->addChannel(QStringLiteral("/t"), {{QStringLiteral("events"),
                                                      QJsonArray{QStringLiteral("agent_error")}}}),
            "id");
        const HttpResponse r = m_rig->http.post(m_rig->channelUrl(id, QStringLiteral("/test")), {});
        QCOMPARE(r.status, 202);
        const QString deliveryId = jsonString(r.object(), "deliveryId");
        QVERIFY(!deliveryId.isEmpty());
        QTRY_COMPARE(m_rig->receiver.count(), 1);
        const WebhookReceiver::Received got = m_rig->receiver.received().at(0);
        QCOMPARE(got.deliveryId(), deliveryId.toUtf8());
        QCOMPARE(got.header("x-flotilla-event"), QByteArray("test"));
        QCOMPARE(jsonString(QJsonDocument::fromJson(got.request.body).object(), "event"),
                 QStringLiteral("test"));
        expectError(m_rig->http.post(
                        m_rig->url(QStringLiteral("/api/notification-channels/nope/test")), {}),
                    404, QStringLiteral("not_found"));
    }

    // The documented retry policy: the wait after attempt n is drawn from [d/2, d] with d = 1 s
    // doubled n - 1 times, at most 15 min; the draws spread (jitter), and 30 attempts add up to
    // about 2.5 to 5 hours.
    void retryWaitsDoubleWithJitterUpToTheCap() {
        const NotifyConfig config; // the defaults the service runs with
        qint64 minTotal = 0;
        qint64 maxTotal = 0;
        for (int attempt = 1; attempt < config.maxAttempts; ++attempt) {
            const qint64 d = qMin(qint64(config.firstRetryMs) << qMin(attempt - 1, 30),
                                  qint64(config.maxRetryMs));
            QSet<qint64> seen;
            for (int i = 0; i < 200; ++i) {
                const qint64 w = Deliverer::backoffMs(config, attempt);
                QVERIFY2(w >= d / 2 && w <= d, qPrintable(QStringLiteral("attempt %1: %2 ms not in "
                                                                         "[%3, %4]")
                                                              .arg(attempt)
                                                              .arg(w)
                                                              .arg(d / 2)
                                                              .arg(d)));
                seen.insert(w);
            }
            QVERIFY2(seen.size() > 50, qPrintable(QString::number(seen.size()))); // jittered
            minTotal += d / 2;
            maxTotal += d;
        }
        QCOMPARE(Deliverer::backoffMs(config, 1000) <= config.maxRetryMs, true);
        // 29 waits before the 30th attempt: 1,023 s doubling, then 19 x 15 min: 2.52 to 5.03 h.
        QVERIFY2(minTotal >= 9000 * 1000 && maxTotal <= 18200 * 1000,
                 qPrintable(QStringLiteral("%1 - %2 ms").arg(minTotal).arg(maxTotal)));
    }
};

QTEST_GUILESS_MAIN(TestNotificationChannels)
#include "tst_notification_channels.moc"
