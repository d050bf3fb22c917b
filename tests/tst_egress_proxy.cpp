// The network allow-list proxy of sandboxed agents (sandbox/EgressProxy.h) over real sockets: a
// QLocalSocket client on the agent's socket, a QTcpServer upstream on loopback. CONNECT tunnels
// and absolute-form requests, each refusal (403, 400, 431, 502, 503), the head timeout,
// back-pressure, close and the sockets' modes, and real curl through socat as the sandbox uses
// it. The matcher and the request parser alone: tst_egress_rules.

#include "protocol/SandboxNames.h"
#include "sandbox/EgressProxy.h"

#include <QLocalSocket>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <sys/stat.h>
#include <vector>

using namespace flotilla;

namespace {

constexpr int kTimeoutMs = 15000;
const QString kAgent = QStringLiteral("agent-1");

// An upstream on 127.0.0.1: echoes what it gets, or answers one HTTP request (once its
// Content-Length is in) and closes.
class Upstream final {
public:
    enum class Mode { Echo, Http };
    explicit Upstream(Mode mode) {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this, mode] {
            while (QTcpSocket *s = m_server.nextPendingConnection()) {
                sockets.append(s);
                QObject::connect(s, &QTcpSocket::readyRead, s, [this, s, mode] {
                    const QByteArray data = s->readAll();
                    received += data;
                    if (mode == Mode::Echo)
                        s->write(data);
                    else if (requestComplete())
                        answer(s);
                });
            }
        });
        m_server.listen(QHostAddress::LocalHost, 0);
    }
    int port() const { return m_server.serverPort(); }
    QString rule() const { return QStringLiteral("127.0.0.1:%1").arg(port()); }
    QByteArray head() const { return received.left(received.indexOf("\r\n\r\n") + 4); }

    QList<QTcpSocket *> sockets;
    QByteArray received;

private:
    static void answer(QTcpSocket *s) {
        s->write("HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n");
        s->disconnectFromHost();
    }
    bool requestComplete() const {
        const qsizetype end = received.indexOf("\r\n\r\n");
        if (end < 0)
            return false;
        const QByteArray field = "\r\ncontent-length: ";
        const qsizetype at = received.toLower().indexOf(field);
        const qsizetype from = at + field.size();
        const qsizetype length =
            at < 0 || at > end
                ? 0
                : received.mid(from, received.indexOf("\r\n", from) - from).toLongLong();
        return received.size() >= end + 4 + length;
    }
    QTcpServer m_server;
};

// A client of the agent's proxy socket; setReading(false) leaves what comes in the kernel.
class Client final {
public:
    explicit Client(const QString &path) {
        m_socket.setReadBufferSize(64 * 1024);
        QObject::connect(&m_socket, &QLocalSocket::readyRead, &m_socket, [this] { take(); });
        QObject::connect(&m_socket, &QLocalSocket::disconnected, &m_socket, [this] { take(); });
        m_socket.connectToServer(path);
    }
    void write(const QByteArray &bytes) { m_socket.write(bytes); }
    void setReading(bool on) {
        m_reading = on;
        take();
    }
    bool isConnected() const { return m_socket.state() == QLocalSocket::ConnectedState; }
    bool isClosed() const { return m_socket.state() == QLocalSocket::UnconnectedState; }
    void close() { m_socket.disconnectFromServer(); }

    QByteArray received;

private:
    void take() {
        if (m_reading && m_socket.bytesAvailable() > 0)
            received += m_socket.readAll();
    }
    QLocalSocket m_socket;
    bool m_reading = true;
};

QByteArray connectHead(int port) {
    return QStringLiteral("CONNECT 127.0.0.1:%1 HTTP/1.1\r\nHost: 127.0.0.1:%1\r\n\r\n")
        .arg(port)
        .toLatin1();
}
const QByteArray kEstablished = "HTTP/1.1 200 Connection established\r\n\r\n";

int closedPort() {
    QTcpServer s;
    s.listen(QHostAddress::LocalHost, 0);
    return s.serverPort();
}

int modeOf(const QString &path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode) : -1;
}

} // namespace

class TestEgressProxy : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void connectRelaysBothWays();
    void upstreamCloseReachesClient();
    void refusesHostsNotAllowed();
    void forwardsAbsoluteForm();
    void forwardsBodyAfterHead();
    void refusesBadRequests_data();
    void refusesBadRequests();
    void connectFailureIs502();
    void headTimeoutCloses();
    void capsConnectionsPerAgent();
    void slowReaderHoldsUpstreamBack();
    void closeDropsConnections();
    void closesFromItsOwnSignal();
    void socketModesAndBadIds();
    void reopenReplacesRules();
    void destructorRemovesSockets();
    void curlThroughSocat();

private:
    QString open(const QStringList &rules, const QString &agent = kAgent) {
        QList<EgressRule> parsed;
        for (const QString &r : rules)
            parsed.append(parseEgressRule(r));
        const Result<QString> path = m_proxy->open(agent, parsed);
        return path ? *path : QString();
    }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EgressProxy> m_proxy;
};

void TestEgressProxy::init() {
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_proxy = std::make_unique<EgressProxy>(m_dir->filePath(QStringLiteral("run/egress")));
}

void TestEgressProxy::cleanup() {
    m_proxy.reset();
    m_dir.reset();
}

void TestEgressProxy::connectRelaysBothWays() {
    Upstream upstream(Upstream::Mode::Echo);
    const QString path = open({upstream.rule()});
    QVERIFY(!path.isEmpty());
    Client client(path);
    // Bytes sent right behind the head reach the upstream too.
    client.write(connectHead(upstream.port()) + "early");
    QTRY_COMPARE_WITH_TIMEOUT(client.received, kEstablished + "early", kTimeoutMs);
    client.write("ping");
    QTRY_COMPARE_WITH_TIMEOUT(client.received, kEstablished + "earlyping", kTimeoutMs);

    QByteArray big(4 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char(i % 251);
    client.write(big);
    const QByteArray expected = kEstablished + "earlyping" + big;
    QTRY_VERIFY_WITH_TIMEOUT(client.received.size() >= expected.size(), kTimeoutMs);
    QVERIFY(client.received == expected);

    // The client leaves: the upstream's side is closed too.
    client.close();
    QCOMPARE(upstream.sockets.size(), 1);
    QTRY_COMPARE_WITH_TIMEOUT(upstream.sockets[0]->state(), QAbstractSocket::UnconnectedState,
                              kTimeoutMs);
}

void TestEgressProxy::upstreamCloseReachesClient() {
    Upstream upstream(Upstream::Mode::Echo);
    Client client(open({upstream.rule()}));
    client.write(connectHead(upstream.port()));
    QTRY_COMPARE_WITH_TIMEOUT(client.received, kEstablished, kTimeoutMs);
    QTRY_COMPARE(upstream.sockets.size(), 1);
    upstream.sockets[0]->write("bye");
    upstream.sockets[0]->disconnectFromHost();
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QCOMPARE(client.received, kEstablished + "bye");
}

void TestEgressProxy::refusesHostsNotAllowed() {
    Upstream upstream(Upstream::Mode::Echo);
    const int other = closedPort();
    const QString path =
        open({QStringLiteral("127.0.0.1:%1").arg(other), QStringLiteral("*.example.test")});
    // Another agent's rules let the upstream through: they are not agent-1's.
    QVERIFY(!open({upstream.rule()}, QStringLiteral("agent-2")).isEmpty());
    QSignalSpy spy(m_proxy.get(), &EgressProxy::blocked);

    Client client(path);
    client.write(connectHead(upstream.port()));
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    const QByteArray body = "flotilla sandbox: 127.0.0.1:" + QByteArray::number(upstream.port()) +
                            " is not on this agent's allow-list\n";
    QCOMPARE(client.received, "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
                              "Content-Length: " +
                                  QByteArray::number(body.size()) +
                                  "\r\nConnection: close\r\n\r\n" + body);
    QCOMPARE(spy.size(), 1);
    QCOMPARE(spy[0], QVariantList({kAgent, QStringLiteral("127.0.0.1"), upstream.port()}));

    // The wildcard's apex, in absolute form, lowercased in the signal; no name is resolved.
    Client apex(path);
    apex.write("GET http://Example.TEST/ HTTP/1.1\r\nHost: Example.TEST\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(apex.isClosed(), kTimeoutMs);
    QVERIFY(apex.received.startsWith("HTTP/1.1 403 Forbidden\r\n"));
    QVERIFY(apex.received.endsWith("flotilla sandbox: example.test:80 is not on this agent's "
                                   "allow-list\n"));
    QCOMPARE(spy.size(), 2);
    QCOMPARE(spy[1], QVariantList({kAgent, QStringLiteral("example.test"), 80}));

    // Nothing reached the upstream (a window: the proxy decides before it would connect).
    QTest::qWait(200);
    QVERIFY(upstream.sockets.isEmpty());
}

void TestEgressProxy::forwardsAbsoluteForm() {
    Upstream upstream(Upstream::Mode::Http);
    Client client(open({upstream.rule()}));
    const QByteArray host = "127.0.0.1:" + QByteArray::number(upstream.port());
    client.write("GET http://" + host + "/x HTTP/1.1\r\nHost: " + host +
                 "\r\nUser-Agent: t\r\nProxy-Connection: keep-alive\r\n"
                 "Proxy-Authorization: Basic Zm9vOmJhcg==\r\nAccept: */*\r\n\r\n");
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QCOMPARE(client.received,
             "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n");
    QCOMPARE(upstream.head(), "GET /x HTTP/1.1\r\nHost: " + host +
                                  "\r\nUser-Agent: t\r\nAccept: */*\r\nConnection: close\r\n\r\n");
}

void TestEgressProxy::forwardsBodyAfterHead() {
    Upstream upstream(Upstream::Mode::Http);
    Client client(open({upstream.rule()}));
    // Part of the body with the head, the rest while the proxy connects.
    client.write("POST http://127.0.0.1:" + QByteArray::number(upstream.port()) +
                 "/p HTTP/1.1\r\nContent-Length: 11\r\n\r\nhello");
    client.write(" world");
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QVERIFY(client.received.endsWith("\r\n\r\nhello\n"));
    QCOMPARE(upstream.received,
             "POST /p HTTP/1.1\r\nContent-Length: 11\r\nConnection: close\r\n\r\nhello world");
}

void TestEgressProxy::refusesBadRequests_data() {
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<QByteArray>("status");
    const QByteArray bad = "HTTP/1.1 400 Bad Request\r\n";
    QTest::newRow("garbage") << QByteArray("hello there\r\n\r\n") << bad;
    QTest::newRow("origin form") << QByteArray("GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << bad;
    QTest::newRow("https absolute form")
        << QByteArray("GET https://127.0.0.1/ HTTP/1.1\r\n\r\n") << bad;
    QTest::newRow("CONNECT without port")
        << QByteArray("CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n") << bad;
    const QByteArray tooLarge = "HTTP/1.1 431 Request Header Fields Too Large\r\n";
    const QByteArray filler(17 * 1024, 'a');
    QTest::newRow("head over 16 KiB, unfinished")
        << "GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: " + filler << tooLarge;
    QTest::newRow("head over 16 KiB, finished")
        << "GET http://127.0.0.1/ HTTP/1.1\r\nX-Big: " + filler + "\r\n\r\n"
        << tooLarge;
}

void TestEgressProxy::refusesBadRequests() {
    QFETCH(QByteArray, request);
    QFETCH(QByteArray, status);
    QSignalSpy spy(m_proxy.get(), &EgressProxy::blocked);
    Client client(open({QStringLiteral("127.0.0.1")}));
    client.write(request);
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QVERIFY2(client.received.startsWith(status), client.received.left(200).constData());
    QVERIFY(client.received.contains("\r\nContent-Type: text/plain\r\n"));
    QCOMPARE(spy.size(), 0);
}

void TestEgressProxy::connectFailureIs502() {
    const int port = closedPort();
    const QString path = open({QStringLiteral("127.0.0.1")});
    const QByteArray target = "127.0.0.1:" + QByteArray::number(port);
    for (const QByteArray &request :
         {connectHead(port), QByteArray("GET http://" + target + "/ HTTP/1.1\r\n\r\n")}) {
        Client client(path);
        client.write(request);
        QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
        QVERIFY2(client.received.startsWith("HTTP/1.1 502 Bad Gateway\r\n"),
                 client.received.constData());
        QVERIFY(client.received.contains(QByteArray("cannot connect to " + target + ": ")));
    }
}

void TestEgressProxy::headTimeoutCloses() {
    m_proxy->setHeadTimeoutMs(300);
    Client client(open({QStringLiteral("127.0.0.1")}));
    client.write("CONNECT 127.0.0.1:1");
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QCOMPARE(client.received, QByteArray());
}

void TestEgressProxy::capsConnectionsPerAgent() {
    m_proxy->setHeadTimeoutMs(120000); // the idle ones stay however slow this machine is
    Upstream upstream(Upstream::Mode::Echo);
    const QString path = open({upstream.rule()});
    std::vector<std::unique_ptr<Client>> live;
    for (int i = 0; i < EgressProxy::kMaxConnections; ++i)
        live.push_back(std::make_unique<Client>(path));
    QTRY_VERIFY_WITH_TIMEOUT(
        std::all_of(live.begin(), live.end(), [](const auto &c) { return c->isConnected(); }),
        kTimeoutMs);
    Client extra(path);
    QTRY_VERIFY_WITH_TIMEOUT(extra.isClosed(), kTimeoutMs);
    QVERIFY(extra.received.startsWith("HTTP/1.1 503 Service Unavailable\r\n"));
    QVERIFY(std::all_of(live.begin(), live.end(), [](const auto &c) { return c->isConnected(); }));

    // A connection that ends gives its slot back.
    live.front()->close();
    std::unique_ptr<Client> next;
    QVERIFY(QTest::qWaitFor(
        [&] {
            if (next && !next->received.isEmpty() && next->received != kEstablished)
                next.reset(); // still the 503 of a slot not yet given back
            if (!next) {
                next = std::make_unique<Client>(path);
                next->write(connectHead(upstream.port()));
            }
            return next->received == kEstablished;
        },
        kTimeoutMs));
}

void TestEgressProxy::slowReaderHoldsUpstreamBack() {
    Upstream upstream(Upstream::Mode::Echo);
    Client client(open({upstream.rule()}));
    client.write(connectHead(upstream.port()));
    QTRY_COMPARE_WITH_TIMEOUT(client.received, kEstablished, kTimeoutMs);
    QTRY_COMPARE(upstream.sockets.size(), 1);

    QByteArray big(32 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < big.size(); ++i)
        big[i] = char(i % 253);
    client.setReading(false);
    upstream.sockets[0]->write(big);
    // A window: with the client not reading, the proxy holds at most about 1 MiB and the kernel
    // some MiB; the rest must still wait in the upstream's own buffer.
    QTest::qWait(1000);
    QVERIFY2(upstream.sockets[0]->bytesToWrite() > big.size() / 2,
             QByteArray::number(upstream.sockets[0]->bytesToWrite()).constData());

    client.setReading(true);
    QTRY_VERIFY_WITH_TIMEOUT(client.received.size() >= kEstablished.size() + big.size(),
                             kTimeoutMs);
    QVERIFY(client.received == kEstablished + big);
}

void TestEgressProxy::closeDropsConnections() {
    Upstream upstream(Upstream::Mode::Echo);
    const QString path = open({upstream.rule()});
    Client tunnel(path);
    tunnel.write(connectHead(upstream.port()) + "ping");
    QTRY_COMPARE_WITH_TIMEOUT(tunnel.received, kEstablished + "ping", kTimeoutMs);
    Client idle(path);
    QTRY_VERIFY(idle.isConnected());

    QVERIFY(m_proxy->isOpen(kAgent));
    m_proxy->close(kAgent);
    QVERIFY(!m_proxy->isOpen(kAgent));
    QVERIFY(!QFile::exists(path));
    QTRY_VERIFY_WITH_TIMEOUT(tunnel.isClosed() && idle.isClosed(), kTimeoutMs);
    QTRY_COMPARE_WITH_TIMEOUT(upstream.sockets[0]->state(), QAbstractSocket::UnconnectedState,
                              kTimeoutMs);
    Client late(path);
    QTRY_VERIFY(late.isClosed());
}

// A slot of `blocked` may close the agent's proxy: the refusing connection is on the stack.
void TestEgressProxy::closesFromItsOwnSignal() {
    const QString path = open({});
    connect(m_proxy.get(), &EgressProxy::blocked, this, [this] { m_proxy->close(kAgent); });
    Client client(path);
    client.write(connectHead(closedPort()));
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
    QVERIFY(client.received.startsWith("HTTP/1.1 403 Forbidden\r\n"));
    QVERIFY(!m_proxy->isOpen(kAgent));
    QVERIFY(!QFile::exists(path));
}

void TestEgressProxy::socketModesAndBadIds() {
    const QString path = open({QStringLiteral("127.0.0.1")});
    QVERIFY(!path.isEmpty());
    QCOMPARE(path, m_dir->filePath(QStringLiteral("run/egress/agent-1.sock")));
    QCOMPARE(modeOf(path) & 0777, 0600);
    QVERIFY(S_ISSOCK(modeOf(path)));
    QCOMPARE(modeOf(m_dir->filePath(QStringLiteral("run/egress"))) & 0777, 0700);

    for (const QString &id : {QStringLiteral("../x"), QStringLiteral(".hidden"), QString()}) {
        const Result<QString> refused = m_proxy->open(id, {});
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::Internal);
        QCOMPARE(refused.error().code, wire::sandbox::code::SandboxUnavailable);
    }
    // A socket path longer than a Unix socket's name may be is an error, not a crash.
    EgressProxy deep(m_dir->filePath(QString(120, u'd')));
    const Result<QString> tooLong = deep.open(kAgent, {});
    QVERIFY(!tooLong);
    QVERIFY(tooLong.error().message.contains(QLatin1String("cannot listen")));
}

void TestEgressProxy::reopenReplacesRules() {
    Upstream first(Upstream::Mode::Echo);
    Upstream second(Upstream::Mode::Echo);
    const QString path = open({first.rule()});
    Client tunnel(path);
    tunnel.write(connectHead(first.port()));
    QTRY_COMPARE_WITH_TIMEOUT(tunnel.received, kEstablished, kTimeoutMs);

    QCOMPARE(open({second.rule()}), path);
    QTRY_VERIFY_WITH_TIMEOUT(tunnel.isClosed(), kTimeoutMs); // let through under the old rules
    Client refused(path);
    refused.write(connectHead(first.port()));
    QTRY_VERIFY_WITH_TIMEOUT(refused.received.startsWith("HTTP/1.1 403 "), kTimeoutMs);
    Client allowed(path);
    allowed.write(connectHead(second.port()));
    QTRY_COMPARE_WITH_TIMEOUT(allowed.received, kEstablished, kTimeoutMs);
}

void TestEgressProxy::destructorRemovesSockets() {
    const QString a = open({QStringLiteral("127.0.0.1")});
    const QString b = open({}, QStringLiteral("agent-2"));
    QVERIFY(QFile::exists(a) && QFile::exists(b));
    Client client(a);
    QTRY_VERIFY(client.isConnected());
    m_proxy.reset();
    QVERIFY(!QFile::exists(a));
    QVERIFY(!QFile::exists(b));
    QTRY_VERIFY_WITH_TIMEOUT(client.isClosed(), kTimeoutMs);
}

// As the sandbox uses it: socat turns the socket into a TCP proxy port, curl speaks to it.
void TestEgressProxy::curlThroughSocat() {
    const QString socat = QStandardPaths::findExecutable(QStringLiteral("socat"));
    const QString curl = QStandardPaths::findExecutable(QStringLiteral("curl"));
    if (socat.isEmpty() || curl.isEmpty())
        QSKIP("socat or curl is not installed");
    Upstream upstream(Upstream::Mode::Http);
    const QString path = open({upstream.rule()});
    const int proxyPort = closedPort();
    QProcess relay;
    relay.start(socat,
                {QStringLiteral("TCP-LISTEN:%1,bind=127.0.0.1,fork,reuseaddr").arg(proxyPort),
                 QStringLiteral("UNIX-CONNECT:") + path});
    const auto stop = qScopeGuard([&relay] {
        relay.kill();
        relay.waitForFinished();
    });
    QVERIFY(QTest::qWaitFor(
        [&] {
            QTcpSocket probe;
            probe.connectToHost(QHostAddress::LocalHost, quint16(proxyPort));
            return probe.waitForConnected(200);
        },
        kTimeoutMs));

    // curl runs while this event loop serves the proxy: wait for its signal, never block.
    const auto runCurl = [&](const QStringList &args) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char *name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                                 "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"})
            env.remove(QString::fromLatin1(name));
        p.setProcessEnvironment(env);
        QSignalSpy finished(&p, &QProcess::finished);
        p.start(curl, QStringList{QStringLiteral("-s"), QStringLiteral("-x"),
                                  QStringLiteral("http://127.0.0.1:%1").arg(proxyPort)} +
                          args);
        return finished.wait(kTimeoutMs) ? p.readAllStandardOutput() : QByteArray("(no exit)");
    };
    const QString url = QStringLiteral("http://127.0.0.1:%1/").arg(upstream.port());
    QCOMPARE(runCurl({url + QStringLiteral("y")}), QByteArray("hello\n"));
    QVERIFY(upstream.head().startsWith("GET /y HTTP/1.1\r\n"));
    upstream.received.clear();
    // -p: through a CONNECT tunnel.
    QCOMPARE(runCurl({QStringLiteral("-p"), url + QStringLiteral("z")}), QByteArray("hello\n"));
    QVERIFY(upstream.head().startsWith("GET /z HTTP/1.1\r\n"));
    const QByteArray refused = runCurl({QStringLiteral("http://127.0.0.1:%1/").arg(closedPort())});
    QVERIFY2(refused.contains("is not on this agent's allow-list"), refused.constData());
}

QTEST_GUILESS_MAIN(TestEgressProxy)
#include "tst_egress_proxy.moc"
