// The WebSocket event channel against the real in-process service, over real sockets: on-connect
// sync, upgrade paths, broadcasts, auth and origin checks before the handshake, error replies.
// Limits and slow consumers are in tst_websocket_backpressure.cpp.

#include "support/WsTestKit.h"

using namespace flotilla;
using namespace flotilla::test;

class TestWebSocket : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initialSyncComesFirst() {
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        HttpClient http;
        const QJsonObject a = createAgent(http, svc, QStringLiteral("alpha"));
        const QJsonObject b = createAgent(http, svc, QStringLiteral("beta"));
        QVERIFY(!a.isEmpty() && !b.isEmpty());

        WsClient ws;
        QVERIFY(ws.open(svc.wsUrl()));
        QVERIFY(ws.waitFor(m::WorkPlansUpdate));
        const QList<QJsonObject> &got = ws.messages();
        QCOMPARE(got.at(0).value(k::Type).toString(), QString(m::AgentsUpdate));
        QCOMPARE(got.at(0).value(k::Payload), QJsonValue(QJsonArray{a, b}));
        QCOMPARE(got.at(1).value(k::Type).toString(), QString(m::WorkPlansUpdate));
        QCOMPARE(got.at(1).value(k::Payload), QJsonValue(QJsonArray()));
    }

    void upgradePaths_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::addColumn<bool>("accepted");
        QTest::newRow("/ws") << QByteArray("/ws") << true;
        QTest::newRow("/") << QByteArray("/") << true;
        QTest::newRow("/api/agents") << QByteArray("/api/agents") << false;
        QTest::newRow("/other") << QByteArray("/other") << false;
        QTest::newRow("/ws/more") << QByteArray("/ws/more") << false;
    }

    void upgradePaths() {
        QFETCH(QByteArray, path);
        QFETCH(bool, accepted);
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        if (!accepted) {
            const QByteArray response = rawExchange(svc.port(), handshake(path));
            QVERIFY2(response.startsWith("HTTP/1.1 404"), response.constData());
            QVERIFY(!isSwitch(response));
        }
        WsClient ws;
        QCOMPARE(ws.open(svc.wsUrl(QString::fromLatin1(path))), accepted);
        if (accepted) {
            QVERIFY(ws.waitFor(m::AgentsUpdate));
            QVERIFY(pingPong(ws, 1));
        }
        QCOMPARE(svc.app().hub().clientCount(), accepted ? 1 : 0);
    }

    void broadcastsReachEveryClient() {
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        Clients clients;
        QVERIFY(openClients(svc, clients, 3));
        HttpClient http;

        const QJsonObject agent = createAgent(http, svc, QStringLiteral("gamma"));
        const QString id = agent.value(k::Id).toString();
        QVERIFY(!id.isEmpty());
        QVERIFY(everyoneGot(clients, m::AgentCreated, agent));

        const QUrl agentUrl = svc.url(QStringLiteral("/api/agents/") + id);
        const HttpResponse patched = http.patch(agentUrl, {{k::TaskLabel, QStringLiteral("x")}});
        QCOMPARE(patched.status, 200);
        // Exactly id, name and what changed: no cwd, status or any other unchanged field.
        QVERIFY(everyoneGot(clients, m::AgentUpdated,
                            {{k::Id, id},
                             {k::Name_, QStringLiteral("gamma")},
                             {k::TaskLabel, QStringLiteral("x")},
                             {k::LastActivity, patched.object().value(k::LastActivity)}}));

        const HttpResponse notified = http.post(svc.url(QStringLiteral("/api/notify")),
                                                {{k::AgentId, id},
                                                 {k::Title, QStringLiteral("Done")},
                                                 {k::Message, QStringLiteral("all green")}});
        QCOMPARE(notified.status, 201);
        const QJsonObject notification = notified.object().value(k::Notification).toObject();
        QCOMPARE(notification.value(k::Title).toString(), QStringLiteral("Done"));
        QVERIFY(everyoneGot(clients, m::AgentNotification, notification));

        QCOMPARE(http.del(agentUrl).status / 100, 2);
        QVERIFY(everyoneGot(clients, m::AgentDeleted, {{k::Id, id}}));
    }

    void auth_data() {
        QTest::addColumn<QByteArray>("query");
        QTest::addColumn<QByteArray>("header");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("accepted");
        auto row = [](const char *name, const char *query, const char *header, const char *value,
                      bool accepted) {
            QTest::newRow(name) << QByteArray(query) << QByteArray(header) << QByteArray(value)
                                << accepted;
        };
        const char *x = "X-Auth-Token", *bearer = "Authorization", *sub = "Sec-WebSocket-Protocol";
        row("no token", "", "", "", false);
        row("wrong X-Auth-Token", "", x, "nope", false);
        row("wrong bearer", "", bearer, "Bearer nope", false);
        row("wrong query", "?token=nope", "", "", false);
        row("wrong subprotocol", "", sub, "auth-nope", false);
        row("X-Auth-Token", "", x, "s3cret", true);
        row("bearer", "", bearer, "Bearer s3cret", true);
        row("query", "?token=s3cret", "", "", true);
        row("subprotocol", "", sub, "auth-s3cret", true);
    }

    void auth() {
        QFETCH(QByteArray, query);
        QFETCH(QByteArray, header);
        QFETCH(QByteArray, value);
        QFETCH(bool, accepted);
        TestService svc([](ServerConfig &c) { c.authToken = "s3cret"; });
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));

        const QByteArray extra = header.isEmpty() ? QByteArray() : header + ": " + value + "\r\n";
        const QByteArray request = handshake("/ws" + query, extra);
        const QByteArray response =
            accepted ? upgrade(svc.port(), request) : rawExchange(svc.port(), request);
        if (accepted) {
            QVERIFY2(isSwitch(response), response.constData());
            if (header == "Sec-WebSocket-Protocol") // browsers fail the handshake without the echo
                QVERIFY2(
                    response.contains(QByteArray("\r\nSec-WebSocket-Protocol: " + value + "\r\n")),
                    response.constData());
        } else {
            QVERIFY2(response.startsWith("HTTP/1.1 401"), response.constData());
            QVERIFY(!isSwitch(response));
        }

        WsClient ws;
        QCOMPARE(openWith(ws, svc.wsUrl(QStringLiteral("/ws") + QString::fromLatin1(query)), header,
                          value),
                 accepted);
        if (accepted)
            QVERIFY(ws.waitFor(m::AgentsUpdate));
        else
            QVERIFY(ws.messages().isEmpty());
    }

    void authGuardsRestButNotHealth() {
        TestService svc([](ServerConfig &c) { c.authToken = "s3cret"; });
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        HttpClient anonymous;
        QCOMPARE(anonymous.get(svc.url(QStringLiteral("/api/agents"))).status, 401);
        QCOMPARE(anonymous.get(svc.url(QStringLiteral("/api/health"))).status, 200);
        HttpClient authed("s3cret");
        QCOMPARE(authed.get(svc.url(QStringLiteral("/api/agents"))).status, 200);
    }

    void origin_data() {
        // "PORT" becomes the service's port. The handshake's Host is "127.0.0.1" (WsTestKit.h).
        QTest::addColumn<QByteArray>("origin");
        QTest::addColumn<int>("status");
        QTest::newRow("other site") << QByteArrayLiteral("http://evil.example") << 403;
        QTest::newRow("lookalike") << QByteArrayLiteral("http://localhost.evil.example") << 403;
        QTest::newRow("null") << QByteArrayLiteral("null") << 403;
        QTest::newRow("localhost, other port") << QByteArrayLiteral("http://localhost:1234") << 403;
        QTest::newRow("loopback, other port") << QByteArrayLiteral("http://127.0.0.1:8080") << 403;
        QTest::newRow("https, own port") << QByteArrayLiteral("https://127.0.0.1:PORT") << 403;
        QTest::newRow("own origin") << QByteArrayLiteral("http://127.0.0.1:PORT") << 101;
        QTest::newRow("localhost, own port") << QByteArrayLiteral("http://localhost:PORT") << 101;
        QTest::newRow("same as Host") << QByteArrayLiteral("http://127.0.0.1") << 101;
    }

    void origin() {
        QFETCH(QByteArray, origin);
        QFETCH(int, status);
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        origin.replace("PORT", QByteArray::number(svc.port()));
        const QByteArray request = handshake("/ws", "Origin: " + origin + "\r\n");
        const QByteArray response =
            status == 101 ? upgrade(svc.port(), request) : rawExchange(svc.port(), request);
        QVERIFY2(rawStatus(response) == status, response.constData());
        QCOMPARE(isSwitch(response), status == 101);
    }

    void badMessageGetsErrorToSenderOnly_data() {
        QTest::addColumn<QByteArray>("message");
        QTest::addColumn<bool>("binary");
        QTest::addColumn<QString>("code");
        auto row = [](const char *name, const char *message, bool binary, QLatin1String code) {
            QTest::newRow(name) << QByteArray(message) << binary << QString(code);
        };
        const QLatin1String bad = wire::code::BadJson;
        row("malformed JSON", "{\"type\":", false, bad);
        row("JSON array", "[{\"type\":\"ping\"}]", false, bad);
        row("missing type", "{\"payload\":{}}", false, bad);
        row("type not a string", "{\"type\":7}", false, bad);
        row("unknown type", "{\"type\":\"frobnicate\"}", false, wire::code::UnknownType);
        row("payload array", "{\"type\":\"ping\",\"payload\":[1]}", false, bad);
        row("payload string", "{\"type\":\"ping\",\"payload\":\"x\"}", false, bad);
        row("binary", "{\"type\":\"ping\"}", true, bad);
    }

    void badMessageGetsErrorToSenderOnly() {
        QFETCH(QByteArray, message);
        QFETCH(bool, binary);
        QFETCH(QString, code);
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        Clients clients;
        QVERIFY(openClients(svc, clients, 2));
        WsClient &sender = *clients[0];
        WsClient &bystander = *clients[1];

        if (binary)
            sender.socket().sendBinaryMessage(message);
        else
            sender.sendText(QString::fromUtf8(message));
        QVERIFY(sender.waitFor(m::Error));
        const QJsonObject error = sender.last(m::Error).value(k::Payload).toObject();
        QCOMPARE(error.value(k::Code).toString(), code);
        QVERIFY(!error.value(k::Message).toString().isEmpty());

        QVERIFY(pingPong(sender, 1));
        QVERIFY(
            pingPong(bystander, 2)); // the error, had it been broadcast, would precede this pong
        QCOMPARE(sender.countOf(m::Error), 1);
        QCOMPARE(bystander.countOf(m::Error), 0);
        QVERIFY(sender.isConnected());
    }
};

QTEST_GUILESS_MAIN(TestWebSocket)
#include "tst_websocket.moc"
