// ServiceClient against the real flotillad binary: REST answers and refusals, the token, the
// event channel (snapshot first, app-level ping), reconnection with backoff across a restart on
// the same port, AuthFailed without a retry loop, the incoming size guard, and the heartbeat
// that drops a silent connection.

#include "client/ServiceClient.h"
#include "protocol/WireNames.h"
#include "support/MonitorFixture.h"

#include <QSignalSpy>
#include <QTcpServer>
#include <QTest>
#include <QWebSocket>
#include <QWebSocketServer>

using namespace flotilla::test;
using flotilla::client::ConnectionState;
using flotilla::client::RestReply;
using flotilla::client::ServiceClient;
namespace k = flotilla::wire::key;
namespace m = flotilla::wire::msg;

namespace {

// Every message type the client emitted, in order.
struct EventLog {
    explicit EventLog(ServiceClient &c) {
        QObject::connect(&c, &ServiceClient::eventReceived, &c,
                         [this](const QString &type, const QJsonValue &payload) {
                             types << type;
                             payloads << payload;
                         });
    }
    int count(QLatin1String type) const { return int(types.count(QString(type))); }
    QStringList types;
    QList<QJsonValue> payloads;
};

quint16 unusedPort() {
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

} // namespace

class TestMonitorClient final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { qRegisterMetaType<ConnectionState>(); }

    void restAnswersAndRefusals() {
        MonitorService svc;
        QVERIFY(svc.start());
        ServiceClient c;
        c.setEndpoint(svc.endpoint());

        RestReply r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/health"), cb); });
        QCOMPARE(r.status, 200);
        QVERIFY(r.ok());
        QCOMPARE(r.body.object().value(k::Status).toString(), QStringLiteral("ok"));

        r = waitReply([&](auto cb) { c.post(QStringLiteral("/api/agents"), {}, cb); });
        QCOMPARE(r.status, 400);
        QCOMPARE(r.code, QString(flotilla::wire::code::MissingField));
        QVERIFY(!r.error.isEmpty());

        r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/agents/nope"), cb); });
        QCOMPARE(r.status, 404);
        QCOMPARE(r.code, QString(flotilla::wire::code::NotFound));

        r = waitReply([&](auto cb) {
            c.post(QStringLiteral("/api/agents"),
                   {{k::Name_, QStringLiteral("x")}, {k::Cwd, QStringLiteral("/nonexistent/dir")}},
                   cb);
        });
        QCOMPARE(r.status, 422);
        QCOMPARE(r.code, QString(flotilla::wire::code::InvalidValue));

        r = waitReply([&](auto cb) {
            c.post(QStringLiteral("/api/agents"),
                   {{k::Name_, QStringLiteral("x")}, {k::Cwd, svc.workDir()}}, cb);
        });
        QCOMPARE(r.status, 201);
        const QString id = r.body.object().value(k::Id).toString();
        r = waitReply([&](auto cb) {
            c.patch(QStringLiteral("/api/agents/") + id, {{k::TaskLabel, QStringLiteral("L")}}, cb);
        });
        QCOMPARE(r.body.object().value(k::TaskLabel).toString(), QStringLiteral("L"));
        r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/notifications?limit=5"), cb); });
        QCOMPARE(r.status, 200); // the query survives the path
        QVERIFY(r.body.isArray());
        r = waitReply([&](auto cb) { c.del(QStringLiteral("/api/agents/") + id, cb); });
        QCOMPARE(r.status, 204);
        QVERIFY(r.ok());

        // No service: status 0 and the network's words.
        c.setEndpoint({localUrl(unusedPort(), QString()), {}});
        r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/health"), cb); });
        QCOMPARE(r.status, 0);
        QVERIFY(!r.ok());
        QVERIFY(!r.error.isEmpty());
    }

    void tokenOpensRestAndChannel() {
        MonitorService svc;
        QVERIFY(svc.start(0, "s3cret-token"));
        ServiceClient c;
        c.setEndpoint(svc.endpoint());
        RestReply r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/agents"), cb); });
        QCOMPARE(r.status, 401);
        QCOMPARE(r.code, QString(flotilla::wire::code::Unauthorized));

        c.setEndpoint(svc.endpoint("s3cret-token"));
        r = waitReply([&](auto cb) { c.get(QStringLiteral("/api/agents"), cb); });
        QCOMPARE(r.status, 200);

        EventLog log(c);
        c.connectToService();
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Connected));
        QTRY_COMPARE(log.types.value(0), QString(m::AgentsUpdate));
    }

    void wrongTokenStopsRetrying() {
        MonitorService svc;
        QVERIFY(svc.start(0, "right-token"));
        ServiceClient c;
        c.setInitialBackoffMs(20);
        c.setMaxBackoffMs(40);
        c.setEndpoint(svc.endpoint("wrong-token"));
        QSignalSpy states(&c, &ServiceClient::stateChanged);
        QSignalSpy errors(&c, &ServiceClient::connectionError);
        c.connectToService();
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::AuthFailed));
        QCOMPARE(states.count(), 2); // Connecting, AuthFailed
        QCOMPARE(stateName(states.at(0).at(0).value<ConnectionState>()),
                 stateName(ConnectionState::Connecting));
        QCOMPARE(c.nextRetryInMs(), -1);
        QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("401")));
        // Many backoff periods later: still no attempt.
        QTest::qWait(300);
        QCOMPARE(states.count(), 2);
        QCOMPARE(stateName(c.state()), stateName(ConnectionState::AuthFailed));

        // A corrected token and an explicit connect recover.
        c.setEndpoint(svc.endpoint("right-token"));
        c.connectToService();
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Connected));
    }

    void snapshotFirstThenLiveEvents() {
        MonitorService svc;
        QVERIFY(svc.start());
        ServiceClient c;
        c.setEndpoint(svc.endpoint());
        QCOMPARE(c.webSocketUrl().toString(),
                 QStringLiteral("ws://127.0.0.1:%1/ws").arg(svc.port()));
        EventLog log(c);
        QVERIFY(!c.sendEvent(QString(m::Ping))); // not connected yet: dropped
        c.connectToService();
        QTRY_VERIFY(!log.types.isEmpty());
        QCOMPARE(log.types.first(), QString(m::AgentsUpdate));
        QCOMPARE(stateName(c.state()), stateName(ConnectionState::Connected));
        QCOMPARE(c.reconnectAttempt(), 0);

        const QString id = svc.createAgent(QStringLiteral("fresh"));
        QVERIFY(!id.isEmpty());
        QTRY_COMPARE(log.count(m::AgentCreated), 1);

        QVERIFY(c.sendEvent(QString(m::Ping), {{QStringLiteral("n"), 7}}));
        QTRY_COMPARE(log.count(m::Pong), 1);
        QCOMPARE(log.payloads.constLast().toObject().value(QStringLiteral("n")).toInt(), 7);

        c.disconnectFromService();
        QCOMPARE(stateName(c.state()), stateName(ConnectionState::Disconnected));
        QCOMPARE(c.nextRetryInMs(), -1);
        QVERIFY(!c.sendEvent(QString(m::Ping)));
    }

    void reconnectsAcrossARestartOnTheSamePort() {
        MonitorService svc;
        QVERIFY(svc.start());
        const quint16 port = svc.port();
        ServiceClient c;
        c.setInitialBackoffMs(50);
        c.setMaxBackoffMs(400);
        c.setEndpoint(svc.endpoint());
        EventLog log(c);
        c.connectToService();
        QTRY_COMPARE(log.count(m::AgentsUpdate), 1);

        QVERIFY(svc.stop());
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Reconnecting));
        // The service is gone: attempts fail and the wait grows, within the cap (+20 % jitter).
        QTRY_VERIFY(c.reconnectAttempt() >= 3);
        QVERIFY(c.nextRetryInMs() <= 480);

        QVERIFY(svc.start(port));
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Connected));
        QCOMPARE(c.reconnectAttempt(), 0);
        QTRY_COMPARE(log.count(m::AgentsUpdate), 2); // a fresh snapshot on every connection
    }

    void oversizedMessagesCloseTheConnection() {
        MonitorService svc;
        QVERIFY(svc.start());
        for (int i = 0; i < 4; ++i)
            QVERIFY(!svc.createAgent(QStringLiteral("agent-with-a-long-name-%1").arg(i)).isEmpty());
        ServiceClient c;
        c.setInitialBackoffMs(5000); // one failure is enough to look at
        c.setMaxIncomingMessageSize(1024);
        c.setEndpoint(svc.endpoint());
        EventLog log(c);
        QSignalSpy errors(&c, &ServiceClient::connectionError);
        c.connectToService();
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Reconnecting));
        QVERIFY(!errors.isEmpty());
        QCOMPARE(log.count(m::AgentsUpdate), 0); // never delivered
    }

    // A connection that stays open but goes silent (a dead peer behind a NAT, a hung service)
    // is detected by the heartbeat and replaced.
    void heartbeatDropsASilentConnection() {
        QWebSocketServer server(QStringLiteral("silent"), QWebSocketServer::NonSecureMode);
        QVERIFY(server.listen(QHostAddress::LocalHost, 0));
        QList<QWebSocket *> peers;
        QStringList received;
        connect(&server, &QWebSocketServer::newConnection, this, [&] {
            QWebSocket *peer = server.nextPendingConnection();
            peers << peer;
            connect(peer, &QWebSocket::textMessageReceived, this,
                    [&](const QString &t) { received << t; });
        });
        ServiceClient c;
        c.setHeartbeat(100, 350);
        c.setInitialBackoffMs(5000);
        c.setEndpoint({localUrl(server.serverPort(), QString()), {}});
        c.connectToService();
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Connected));
        QTRY_VERIFY(!received.isEmpty()); // app-level pings while idle
        QVERIFY(received.first().contains(QStringLiteral("\"type\":\"ping\"")));
        QTRY_COMPARE(stateName(c.state()), stateName(ConnectionState::Reconnecting));
        QVERIFY(c.nextRetryInMs() > 0);
        qDeleteAll(peers);
    }
};

QTEST_GUILESS_MAIN(TestMonitorClient)
#include "tst_monitor_client.moc"
