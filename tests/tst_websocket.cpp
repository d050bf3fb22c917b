// The WebSocket event channel against the real in-process service, over real sockets: on-connect
// sync, upgrade paths, broadcasts, auth and origin checks before the handshake, error replies,
// message size limit, and slow clients that must cost neither memory nor other clients' events.

#include "protocol/WireNames.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsClient.h"
#include "ws/EventHub.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>
#include <QWebSocketHandshakeOptions>

#include <functional>
#include <memory>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace flotilla;
using namespace flotilla::test;
namespace m = flotilla::wire::msg;
namespace k = flotilla::wire::key;

namespace {

using Clients = std::vector<std::unique_ptr<WsClient>>;

QByteArray handshake(const QByteArray &target, const QByteArray &extraHeaders = {}) {
    return "GET " + target +
           " HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
           "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
           extraHeaders + "\r\n";
}

// Sends a raw request on a connected socket. Returns the answer up to the end of a 101's headers
// (plus any frames already read), or everything until the server closes.
QByteArray upgrade(QTcpSocket &s, const QByteArray &request) {
    s.write(request);
    return readUntil(
        s, [](const QByteArray &b) { return b.contains("\r\n\r\n") && rawStatus(b) == 101; }, 5000);
}

QByteArray upgrade(quint16 port, const QByteArray &request) {
    QTcpSocket s;
    return connectRaw(s, port) ? upgrade(s, request) : QByteArray();
}

bool isSwitch(const QByteArray &response) {
    return response.contains("HTTP/1.1 101");
}

// Text payloads of the complete, unmasked server frames in a raw byte stream.
QList<QJsonObject> textFrames(const QByteArray &s) {
    QList<QJsonObject> out;
    qsizetype i = 0;
    while (i + 2 <= s.size()) {
        const int opcode = s[i] & 0x0f;
        quint64 len = quint8(s[i + 1]) & 0x7f;
        qsizetype header = 2;
        if (len >= 126) {
            header = len == 126 ? 4 : 10;
            if (i + header > s.size())
                break;
            len = 0;
            for (qsizetype b = 2; b < header; ++b)
                len = (len << 8) | quint8(s[i + b]);
        }
        if (i + header + qsizetype(len) > s.size())
            break;
        if (opcode == 1)
            out.append(QJsonDocument::fromJson(s.mid(i + header, qsizetype(len))).object());
        i += header + qsizetype(len);
    }
    return out;
}

// The complete text frames of `type` in a raw stream of server frames.
QList<QJsonObject> framesOf(const QByteArray &stream, QLatin1String type) {
    QList<QJsonObject> out = textFrames(stream);
    out.removeIf([type](const QJsonObject &o) { return o.value(k::Type).toString() != type; });
    return out;
}

bool openWith(WsClient &ws, const QUrl &url, const QByteArray &header = {},
              const QByteArray &value = {}) {
    QNetworkRequest request(url);
    QWebSocketHandshakeOptions options;
    if (header == "Sec-WebSocket-Protocol")
        options.setSubprotocols({QString::fromLatin1(value)});
    else if (!header.isEmpty())
        request.setRawHeader(header, value);
    QSignalSpy connected(&ws.socket(), &QWebSocket::connected);
    QSignalSpy gone(&ws.socket(), &QWebSocket::disconnected);
    ws.socket().open(request, options);
    (void)QTest::qWaitFor([&] { return !connected.isEmpty() || !gone.isEmpty(); }, 5000);
    return !connected.isEmpty() && ws.isConnected();
}

// Opens `n` clients and waits for each one's on-connect sync.
bool openClients(TestService &svc, Clients &clients, int n) {
    for (int i = 0; i < n; ++i) {
        clients.push_back(std::make_unique<WsClient>());
        if (!clients.back()->open(svc.wsUrl()) || !clients.back()->waitFor(m::WorkPlansUpdate))
            return false;
    }
    return true;
}

// Every client receives a `type` event whose payload is exactly `payload`.
bool everyoneGot(const Clients &clients, QLatin1String type, const QJsonObject &payload) {
    for (const auto &c : clients) {
        const QJsonObject got =
            c->waitFor(type) ? c->last(type).value(k::Payload).toObject() : QJsonObject();
        if (got != payload) {
            qWarning().noquote() << type << "payload" << QJsonDocument(got).toJson() << "expected"
                                 << QJsonDocument(payload).toJson();
            return false;
        }
    }
    return true;
}

// Sends a ping and waits for its pong: proves the connection is open and everything the server
// queued for this client before the pong has arrived.
bool pingPong(WsClient &ws, int n) {
    const QJsonObject payload{{QStringLiteral("n"), n}};
    const int before = ws.countOf(m::Pong);
    ws.sendJson(QJsonObject{{k::Type, m::Ping}, {k::Payload, payload}});
    return ws.waitFor(m::Pong, before + 1) &&
           ws.last(m::Pong).value(k::Payload).toObject() == payload;
}

QJsonObject createAgent(HttpClient &http, TestService &svc, const QString &name) {
    const HttpResponse r = http.post(svc.url(QStringLiteral("/api/agents")),
                                     QJsonObject{{k::Name_, name}, {k::Cwd, svc.workDir()}});
    return r.status == 201 ? r.object() : QJsonObject();
}

qint64 rssBytes() {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').constFirst().toLongLong() * 1024;
    }
    return -1;
}

struct StormResult {
    int done = 0;
    int failed = 0;
};

// Real REST traffic: up to `total` PATCH requests on one agent, `inFlight` at a time, each setting
// a distinct long taskLabel (so each one changes the agent and yields one agent_updated).
// `afterEach` runs after every reply; returning true stops issuing further requests.
StormResult patchStorm(TestService &svc, const QString &id, int total,
                       const std::function<bool()> &afterEach, int inFlight = 6) {
    QNetworkAccessManager nam;
    QNetworkRequest request(svc.url(QStringLiteral("/api/agents/") + id));
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    StormResult result;
    int sent = 0;
    bool stop = false;
    // A plain event loop, not qWaitFor: that sleeps 10 ms between rounds, a whole request's time.
    QEventLoop loop;
    std::function<void()> next = [&] {
        QByteArray label = "label-" + QByteArray::number(sent++) + '-';
        label += QByteArray(200 - label.size(), 'x'); // the longest label allowed
        const QByteArray body = "{\"taskLabel\":\"" + label + "\"}";
        QNetworkReply *reply = nam.sendCustomRequest(request, "PATCH", body);
        QObject::connect(reply, &QNetworkReply::finished, &nam, [&, reply] {
            result.failed +=
                reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 200;
            ++result.done;
            reply->deleteLater();
            stop = stop || afterEach();
            if (!stop && sent < total)
                next();
            else if (result.done == sent)
                loop.quit();
        });
    };
    for (int i = 0; i < inFlight && sent < total; ++i)
        next();
    QTimer::singleShot(300'000, &loop, &QEventLoop::quit);
    loop.exec();
    return result;
}

// A WebSocket client that completes the handshake and then stops reading, so the server's backlog
// for it grows. Its kernel receive buffer is kept small (set before connecting, as TCP requires):
// otherwise megabytes vanish into kernel buffers first. Returns the bytes read after the 101
// headers, or "no 101".
QByteArray openStalled(QTcpSocket &s, quint16 port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    const int rcvbuf = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0 ||
        !s.setSocketDescriptor(fd)) {
        ::close(fd);
        return QByteArrayLiteral("no 101");
    }
    const QByteArray got = upgrade(s, handshake("/ws"));
    if (!isSwitch(got))
        return QByteArrayLiteral("no 101");
    s.setReadBufferSize(1);
    return got.mid(got.indexOf("\r\n\r\n") + 4);
}

// A service with a small hub backlog cap, one agent driven over REST, `healthyCount` normal
// clients and one raw client that stopped reading.
struct SlowClientRig {
    SlowClientRig(qint64 cap, int stallMs)
        : svc([cap, stallMs](ServerConfig &c) {
            c.hub.backlogCapBytes = cap;
            c.hub.stallTimeoutMs = stallMs;
            c.hub.pongTimeoutMs = 600'000;
        }) {}

    bool start(int healthyCount) {
        if (!svc.start() || !openClients(svc, healthy, healthyCount))
            return false;
        id = createAgent(http, svc, QStringLiteral("busy")).value(k::Id).toString();
        stream = openStalled(stalled, svc.port());
        return !id.isEmpty() && stream != "no 101" &&
               QTest::qWaitFor([&] { return hub().clientCount() == healthyCount + 1; });
    }
    EventHub &hub() { return svc.app().hub(); }
    // Real REST traffic until the hub starts dropping the stalled client's events.
    StormResult stormUntilLagging() {
        return patchStorm(svc, id, 50'000, [this] { return hub().droppedEvents() > 0; });
    }

    TestService svc;
    HttpClient http;
    Clients healthy;
    QString id;
    QTcpSocket stalled;
    QByteArray stream; // what the stalled client read after the 101 headers
};

} // namespace

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
        QTest::addColumn<QByteArray>("origin");
        QTest::addColumn<int>("status");
        QTest::newRow("other site") << QByteArrayLiteral("http://evil.example") << 403;
        QTest::newRow("lookalike") << QByteArrayLiteral("http://localhost.evil.example") << 403;
        QTest::newRow("null") << QByteArrayLiteral("null") << 403;
        QTest::newRow("localhost") << QByteArrayLiteral("http://localhost:1234") << 101;
        QTest::newRow("loopback") << QByteArrayLiteral("http://127.0.0.1:8080") << 101;
        QTest::newRow("same host") << QByteArrayLiteral("http://x") << 101;
    }

    void origin() {
        QFETCH(QByteArray, origin);
        QFETCH(int, status);
        TestService svc;
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
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
        const StormResult storm = rig.stormUntilLagging();
        QCOMPARE(storm.failed, 0);
        QVERIFY(rig.hub().droppedEvents() > 0);
        QElapsedTimer lagging;
        lagging.start();
        QTRY_VERIFY_WITH_TIMEOUT(rig.hub().clientCount() == 1, stallMs + 5000);
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

QTEST_GUILESS_MAIN(TestWebSocket)
#include "tst_websocket.moc"
