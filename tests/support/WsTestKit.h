#pragma once
// Helpers of the WebSocket suites: raw handshakes, clients, REST-driven event storms and a
// client that stops reading.

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
#include <arpa/inet.h>
#include <functional>
#include <memory>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace flotilla::test {

namespace m = ::flotilla::wire::msg;
namespace k = ::flotilla::wire::key;

using Clients = std::vector<std::unique_ptr<WsClient>>;

inline QByteArray handshake(const QByteArray &target, const QByteArray &extraHeaders = {}) {
    return "GET " + target +
           " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
           "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
           extraHeaders + "\r\n";
}

// Sends a raw request on a connected socket. Returns the answer up to the end of a 101's headers
// (plus any frames already read), or everything until the server closes.
inline QByteArray upgrade(QTcpSocket &s, const QByteArray &request) {
    s.write(request);
    return readUntil(
        s, [](const QByteArray &b) { return b.contains("\r\n\r\n") && rawStatus(b) == 101; }, 5000);
}

inline QByteArray upgrade(quint16 port, const QByteArray &request) {
    QTcpSocket s;
    return connectRaw(s, port) ? upgrade(s, request) : QByteArray();
}

inline bool isSwitch(const QByteArray &response) {
    return response.contains("HTTP/1.1 101");
}

// Text payloads of the complete, unmasked server frames in a raw byte stream.
inline QList<QJsonObject> textFrames(const QByteArray &s) {
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
inline QList<QJsonObject> framesOf(const QByteArray &stream, QLatin1String type) {
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
inline bool openClients(TestService &svc, Clients &clients, int n) {
    for (int i = 0; i < n; ++i) {
        clients.push_back(std::make_unique<WsClient>());
        if (!clients.back()->open(svc.wsUrl()) || !clients.back()->waitFor(m::WorkPlansUpdate))
            return false;
    }
    return true;
}

// Every client receives a `type` event whose payload is exactly `payload`.
inline bool everyoneGot(const Clients &clients, QLatin1String type, const QJsonObject &payload) {
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
inline bool pingPong(WsClient &ws, int n) {
    const QJsonObject payload{{QStringLiteral("n"), n}};
    const int before = ws.countOf(m::Pong);
    ws.sendJson(QJsonObject{{k::Type, m::Ping}, {k::Payload, payload}});
    return ws.waitFor(m::Pong, before + 1) &&
           ws.last(m::Pong).value(k::Payload).toObject() == payload;
}

inline QJsonObject createAgent(HttpClient &http, TestService &svc, const QString &name) {
    const HttpResponse r = http.post(svc.url(QStringLiteral("/api/agents")),
                                     QJsonObject{{k::Name_, name}, {k::Cwd, svc.workDir()}});
    return r.status == 201 ? r.object() : QJsonObject();
}

inline qint64 rssBytes() {
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
inline QByteArray openStalled(QTcpSocket &s, quint16 port) {
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

} // namespace flotilla::test
