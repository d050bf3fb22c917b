// WebSocket limits and slow consumers: message size, stalled clients (bounded memory, others
// unaffected, disconnect, resync) and keepalive pings.

#include "support/WsTestKit.h"

using namespace flotilla;
using namespace flotilla::test;

class TestWebSocketBackpressure : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void messageSizeLimit_data() {
        QTest::addColumn<int>("size");
        QTest::addColumn<bool>("closed");
        QTest::newRow("60 KiB") << 60 * 1024 << false;
        QTest::newRow("64 KiB + 1") << 64 * 1024 + 1 << true;
        QTest::newRow("1 MiB") << 1024 * 1024 << true;
    }

    void messageSizeLimit() {
        QFETCH(int, size);
        QFETCH(bool, closed);
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        Clients clients;
        QVERIFY(openClients(svc, clients, 2));
        WsClient &big = *clients[0];

        QByteArray text = "{\"type\":\"ping\",\"payload\":{\"pad\":\"";
        text += QByteArray(size - text.size() - 3, 'a') + "\"}}";
        QCOMPARE(text.size(), size);
        QSignalSpy gone(&big.socket(), &QWebSocket::disconnected);
        big.sendText(QString::fromUtf8(text));
        if (closed) {
            QVERIFY(gone.wait(5000));
            QCOMPARE(big.socket().closeCode(), QWebSocketProtocol::CloseCodeTooMuchData);
            QTRY_COMPARE(svc.app().hub().clientCount(), 1);
        } else {
            QVERIFY(big.waitFor(m::Pong));
            QCOMPARE(big.countOf(m::Error), 0);
            QVERIFY(big.isConnected());
        }
        QVERIFY(pingPong(*clients[1], 1));
        QVERIFY(clients[1]->isConnected());
    }

    void stalledClientCostsNothing() {
        const qint64 cap = 256 * 1024;
        SlowClientRig rig(cap, 600'000);
        QVERIFY(rig.start(1));
        EventHub &hub = rig.hub();
        WsClient &healthy = *rig.healthy[0];

        const qint64 rssBefore = rssBytes();
        qint64 largest = 0;
        qint64 rssPeak = rssBefore;
        int replies = 0;
        const int total = 10'000;
        const StormResult storm = patchStorm(rig.svc, rig.id, total, [&] {
            largest = qMax(largest, hub.largestBacklog());
            if (++replies % 100 == 0)
                rssPeak = qMax(rssPeak, rssBytes());
            return false;
        });
        QCOMPARE(storm.done, total);
        QCOMPARE(storm.failed, 0);
        QVERIFY(healthy.waitFor(m::AgentUpdated, total, 30'000));
        QCOMPARE(healthy.countOf(m::AgentUpdated), total);

        const qint64 oneMessage =
            QJsonDocument(healthy.last(m::AgentUpdated)).toJson(QJsonDocument::Compact).size() + 14;
        QVERIFY2(largest <= cap + oneMessage, QByteArray::number(largest).constData());
        QVERIFY(largest > cap / 2); // the stalled client really did back up
        QVERIFY2(hub.droppedEvents() > 0, "kernel buffers took every event; make events larger");
        rssPeak = qMax(rssPeak, rssBytes());
        QVERIFY2(rssPeak - rssBefore < 100 * 1024 * 1024,
                 QByteArray::number(rssPeak - rssBefore).constData());
        QCOMPARE(hub.clientCount(), 2); // stall timeout not reached: lagging, not yet dropped
    }

    void stalledClientIsDisconnected() {
        const int stallMs = 1500;
        SlowClientRig rig(64 * 1024, stallMs);
        QVERIFY(rig.start(1));
        // Events keep flowing, as in real use, until the stalled client is cut. (With no traffic
        // its backlog can drain into kernel socket buffers and it looks caught up; it is then cut
        // by the ping timeout instead, see keepalivePingsCutSilentPeers.)
        QElapsedTimer lagging;
        lagging.start();
        const StormResult storm =
            patchStorm(rig.svc, rig.id, 500'000, [&] { return rig.hub().clientCount() == 1; });
        QCOMPARE(storm.failed, 0);
        QVERIFY(rig.hub().droppedEvents() > 0);
        QCOMPARE(rig.hub().clientCount(), 1);
        QVERIFY2(lagging.elapsed() >= stallMs - 250,
                 QByteArray::number(lagging.elapsed()).constData());
        QVERIFY(rig.healthy[0]->waitFor(m::AgentUpdated, storm.done));
        QVERIFY(pingPong(*rig.healthy[0], 1));
    }

    // Server pings: a live client (QWebSocket answers pings by itself) outlives the pong timeout
    // many times over; a peer that completed the handshake but never answers is cut.
    void keepalivePingsCutSilentPeers() {
        TestService svc([](ServerConfig &c) {
            c.hub.pingIntervalMs = 100;
            c.hub.pongTimeoutMs = 500;
        });
        QVERIFY(svc.start());
        Clients live;
        QVERIFY(openClients(svc, live, 1));
        QTcpSocket silent;
        QVERIFY(connectRaw(silent, svc.port()));
        QVERIFY(isSwitch(upgrade(silent, handshake("/ws"))));
        QTRY_COMPARE(svc.app().hub().clientCount(), 2);
        QElapsedTimer t;
        t.start();
        // The silent peer drains what it is sent (nothing backs up) but never sends a pong.
        QTRY_VERIFY_WITH_TIMEOUT(
            (silent.readAll(), silent.state() == QAbstractSocket::UnconnectedState), 4000);
        QVERIFY2(t.elapsed() >= 450, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(svc.app().hub().clientCount(), 1);
        // Staying connected is the assertion here, so time must pass: three pong timeouts.
        QTest::qWait(1500);
        QVERIFY(live[0]->isConnected());
        QVERIFY(pingPong(*live[0], 7));
    }

    void recoveredClientIsResynced() {
        SlowClientRig rig(64 * 1024, 600'000);
        QVERIFY(rig.start(0));
        const StormResult storm = rig.stormUntilLagging();
        QCOMPARE(storm.failed, 0);
        QVERIFY(rig.hub().droppedEvents() > 0);
        const HttpResponse now = rig.http.get(rig.svc.url(QStringLiteral("/api/agents/") + rig.id));

        // Reads again: the backlog drains and a fresh full sync sums up what it missed.
        rig.stalled.setReadBufferSize(0);
        QByteArray &stream = rig.stream;
        QTRY_VERIFY_WITH_TIMEOUT(
            (stream += rig.stalled.readAll(), framesOf(stream, m::AgentsUpdate).size() >= 2),
            10'000);
        QVERIFY(framesOf(stream, m::AgentUpdated).size() < storm.done); // some were dropped
        const QJsonArray agents =
            framesOf(stream, m::AgentsUpdate).constLast().value(k::Payload).toArray();
        QCOMPARE(agents.size(), 1);
        QCOMPARE(agents.at(0).toObject(), now.object());
    }
};

QTEST_GUILESS_MAIN(TestWebSocketBackpressure)
#include "tst_websocket_backpressure.moc"
