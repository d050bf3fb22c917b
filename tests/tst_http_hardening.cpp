// What the HTTP server of Qt 6.4.2 lacks, and the guard adds: limits answered before buffering,
// timeouts, strict framing, no upgrade hijack, 100-continue. Raw sockets, real server.

#include "support/HttpClient.h"
#include "support/TestService.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRandomGenerator>
#include <QTcpSocket>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

qint64 rssKiB() {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return 0;
}

const QByteArray kWsHeaders =
    "Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";

} // namespace

class TestHttpHardening final : public QObject {
    Q_OBJECT

    std::unique_ptr<TestService> m_service;

    quint16 port() const { return m_service->port(); }
    void startWith(const std::function<void(ServerConfig &)> &tweak) {
        m_service = std::make_unique<TestService>(tweak);
        QVERIFY2(m_service->start(), qPrintable(m_service->lastError()));
    }
    void expectStillServing() {
        HttpClient http(m_service->config().authToken);
        QCOMPARE(http.get(m_service->url(QStringLiteral("/api/agents"))).status, 200);
    }

private Q_SLOTS:
    void init() {
        startWith([](ServerConfig &c) {
            c.http.limits.maxBodyBytes = 4096;
            c.http.limits.headerTimeoutMs = 600;
            c.http.limits.bodyTimeoutMs = 600;
            c.http.limits.idleTimeoutMs = 600;
        });
    }
    void cleanup() { m_service.reset(); }

    void upgradeOnRestRouteIsRefused_data() {
        QTest::addColumn<QByteArray>("path");
        QTest::newRow("list") << QByteArray("/api/agents");
        QTest::newRow("status") << QByteArray("/api/agents/status");
        QTest::newRow("health") << QByteArray("/api/health");
        QTest::newRow("unknown") << QByteArray("/elsewhere");
    }

    void upgradeOnRestRouteIsRefused() {
        QFETCH(QByteArray, path);
        bool closed = false;
        const QByteArray r = rawExchange(
            port(), "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + kWsHeaders + "\r\n", 3000,
            &closed);
        QCOMPARE(rawStatus(r), 404);
        QVERIFY2(!r.contains("101"), r.constData());
        QVERIFY(QJsonDocument::fromJson(rawBody(r)).object().value(QStringLiteral("code")) ==
                QStringLiteral("route_not_found"));
        QVERIFY(closed);
        expectStillServing();
    }

    void unsupportedUpgradeIsRefused() {
        const QByteArray r = rawExchange(port(),
                                         "GET /api/agents HTTP/1.1\r\nHost: "
                                         "127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n",
                                         3000);
        QCOMPARE(rawStatus(r), 400);
        expectStillServing();
    }

    void bodyAtTheLimitPassesOneMoreByteDoesNot() {
        QByteArray body = "{\"name\":\"" + QByteArray(4096 - 11, 'n') + "\"}";
        QCOMPARE(body.size(), 4096);
        HttpClient http;
        // Reaches the handler: a 4085-character name is refused as a value (422), not as a size.
        QCOMPARE(http.send("POST", m_service->url(QStringLiteral("/api/agents")), body).status,
                 400); // no cwd
        body.insert(9, 'n');
        const HttpResponse over =
            http.send("POST", m_service->url(QStringLiteral("/api/agents")), body);
        QCOMPARE(over.status, 413);
        QCOMPARE(over.object().value(QStringLiteral("code")).toString(),
                 QStringLiteral("payload_too_large"));
    }

    void oversizedBodyIsRefusedBeforeItIsSent() {
        // Announce 500 MB and send none of it: the 413 must come on the headers alone.
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        QElapsedTimer t;
        t.start();
        s.write("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nContent-Length: 500000000\r\n\r\n");
        const QByteArray r = readUntil(
            s, [](const QByteArray &b) { return b.contains("}"); }, 3000);
        QCOMPARE(rawStatus(r), 413);
        QVERIFY2(t.elapsed() < 500, qPrintable(QString::number(t.elapsed())));
        QVERIFY(r.contains("Connection: close"));
        QVERIFY(waitClosed(s, 3000));
    }

    void streamingAHugeBodyDoesNotGrowMemory() {
        const qint64 before = rssKiB();
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        s.write("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nContent-Length: 104857600\r\n\r\n");
        const QByteArray chunk(1 << 20, 'x');
        QByteArray response;
        for (int i = 0; i < 100 && s.state() == QAbstractSocket::ConnectedState; ++i) {
            s.write(chunk);
            (void)QTest::qWaitFor(
                [&] {
                    return s.bytesToWrite() < (1 << 20) ||
                           s.state() != QAbstractSocket::ConnectedState;
                },
                200);
            response += s.readAll();
        }
        response += readUntil(
            s, [](const QByteArray &b) { return b.contains("}"); }, 3000);
        QCOMPARE(rawStatus(response), 413);
        QVERIFY2(rssKiB() - before < 20 * 1024,
                 qPrintable(QStringLiteral("RSS grew by %1 KiB").arg(rssKiB() - before)));
    }

    void chunkedBodies() {
        // Within the limit: reassembled and handled (a real create).
        const QByteArray json =
            "{\"name\":\"chunky\",\"cwd\":\"" + m_service->workDir().toUtf8() + "\"}";
        const QByteArray a = json.left(10), b = json.mid(10);
        QByteArray req = "POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        req += QByteArray::number(a.size(), 16) + "\r\n" + a + "\r\n" +
               QByteArray::number(b.size(), 16) + ";ext=1\r\n" + b + "\r\n0\r\n\r\n";
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        s.write(req);
        QCOMPARE(rawStatus(readUntil(
                     s, [](const QByteArray &r) { return r.endsWith("}"); }, 3000)),
                 201);

        // Over the limit across chunks: refused as soon as the sum passes it.
        QByteArray big = "POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                         "application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        for (int i = 0; i < 5; ++i)
            big += "400\r\n" + QByteArray(1024, 'x') + "\r\n";
        QCOMPARE(rawStatus(rawExchange(port(), big, 3000)), 413);
        QCOMPARE(
            rawStatus(rawExchange(port(),
                                  "POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                                  "application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                  3000)),
            400);
    }

    void slowClientsAreCut_data() {
        QTest::addColumn<QByteArray>("partial");
        QTest::addColumn<int>("status");
        QTest::newRow("slowloris headers")
            << QByteArray("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1\r\n") << 408;
        QTest::newRow("stalled body")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: 100\r\n\r\n{\"na")
            << 408;
        QTest::newRow("silent connection") << QByteArray() << 0;
    }

    void slowClientsAreCut() {
        QFETCH(QByteArray, partial);
        QFETCH(int, status);
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        QElapsedTimer t;
        t.start();
        s.write(partial);
        const QByteArray got = readUntil(
            s, [](const QByteArray &) { return false; }, 5000);
        QVERIFY2(s.state() != QAbstractSocket::ConnectedState,
                 "server kept a slow connection open");
        QVERIFY2(t.elapsed() >= 500 && t.elapsed() < 3000,
                 qPrintable(QString::number(t.elapsed())));
        QCOMPARE(rawStatus(got), status);
        expectStillServing();
    }

    void idleKeepAliveIsClosed() {
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        for (int i = 0; i < 2; ++i) { // two requests on one connection: keep-alive works
            s.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            QCOMPARE(rawStatus(readUntil(
                         s, [](const QByteArray &b) { return b.endsWith("}"); }, 2000)),
                     200);
        }
        QElapsedTimer t;
        t.start();
        QVERIFY(waitClosed(s, 4000));
        QVERIFY2(t.elapsed() >= 400, qPrintable(QString::number(t.elapsed())));
    }

    void malformedRequests_data() {
        QTest::addColumn<QByteArray>("request");
        QTest::addColumn<int>("status");
        QTest::newRow("garbage line") << QByteArray("GARBAGE\r\n\r\n") << 400;
        QTest::newRow("no version")
            << QByteArray("GET /api/health\r\nHost: 127.0.0.1\r\n\r\n") << 400;
        QTest::newRow("http 9") << QByteArray("GET /api/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n")
                                << 505;
        QTest::newRow("double space")
            << QByteArray("GET  /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 400;
        QTest::newRow("relative target")
            << QByteArray("GET api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") << 400;
        QTest::newRow("header without colon")
            << QByteArray("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBroken\r\n\r\n") << 400;
        QTest::newRow("obs-fold")
            << QByteArray(
                   "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: 1\r\n  folded\r\n\r\n")
            << 400;
        QTest::newRow("control char")
            << QByteArray("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a\x01b\r\n\r\n")
            << 400;
        QTest::newRow("no host") << QByteArray("GET /api/health HTTP/1.1\r\n\r\n") << 400;
        QTest::newRow("bad length")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: 12abc\r\n\r\n")
            << 400;
        QTest::newRow("negative length")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: -1\r\n\r\n")
            << 400;
        QTest::newRow("conflicting lengths")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: "
                          "1\r\nContent-Length: 2\r\n\r\n")
            << 400;
        QTest::newRow("length and chunked")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: "
                          "3\r\nTransfer-Encoding: chunked\r\n\r\n")
            << 400;
        QTest::newRow("gzip encoding")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nTransfer-Encoding: gzip\r\n\r\n")
            << 501;
        QTest::newRow("connect") << QByteArray(
                                        "CONNECT /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                 << 405;
        QTest::newRow("long target") << (QByteArray("GET /") + QByteArray(9000, 'a') +
                                         " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                                     << 414;
        QTest::newRow("odd expectation")
            << QByteArray("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                          "application/json\r\nContent-Length: 2\r\nExpect: "
                          "tea\r\n\r\n")
            << 417;
        // Fields the guard and Qt's parser must read alike: a second one is refused (RFC 9112
        // §3.2 for Host), even with the same value.
        const QByteArray post = "POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\n";
        QTest::newRow("two Host") << QByteArray("GET /api/health HTTP/1.1\r\nHost: "
                                                "127.0.0.1\r\nhost: evil.example\r\n\r\n")
                                  << 400;
        QTest::newRow("two Host, same value")
            << QByteArray("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\r\n")
            << 400;
        QTest::newRow("two Origin") << QByteArray("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                  "Origin: http://127.0.0.1\r\nOrigin: "
                                                  "http://evil.example\r\n\r\n")
                                    << 400;
        QTest::newRow("two Content-Type")
            << QByteArray(post + "Content-Type: application/json\r\nContent-Type: "
                                 "text/plain\r\nContent-Length: 2\r\n\r\n{}")
            << 400;
        QTest::newRow("two equal Content-Length")
            << QByteArray(post + "Content-Type: application/json\r\nContent-Length: "
                                 "2\r\nContent-Length: 2\r\n\r\n{}")
            << 400;
        QTest::newRow("Content-Length list")
            << QByteArray(post + "Content-Type: application/json\r\nContent-Length: 2, 2\r\n\r\n{}")
            << 400;
        QTest::newRow("two Connection") << QByteArray("GET /api/health HTTP/1.1\r\nHost: "
                                                      "127.0.0.1\r\nConnection: keep-alive\r\n"
                                                      "Connection: upgrade\r\n\r\n")
                                        << 400;
        QTest::newRow("two Upgrade") << QByteArray("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                   "Connection: Upgrade\r\nUpgrade: websocket\r\n"
                                                   "Upgrade: h2c\r\n\r\n")
                                     << 400;
        QTest::newRow("binary junk")
            << QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 15) << 400;
    }

    void malformedRequests() {
        QFETCH(QByteArray, request);
        QFETCH(int, status);
        bool closed = false;
        const QByteArray r = rawExchange(port(), request, 3000, &closed);
        QCOMPARE(rawStatus(r), status);
        QVERIFY(!QJsonDocument::fromJson(rawBody(r))
                     .object()
                     .value(QStringLiteral("error"))
                     .toString()
                     .isEmpty());
        QVERIFY(closed);
        expectStillServing();
    }

    // Every answer of the port, API and refusal alike, is neither sniffed nor readable by another
    // site's page as a no-cors resource.
    void everyAnswerCarriesNosniffAndCorp() {
        HttpClient http;
        const HttpResponse ok = http.get(m_service->url(QStringLiteral("/api/agents")));
        const HttpResponse missing = http.get(m_service->url(QStringLiteral("/api/nothing")));
        const HttpResponse health = http.get(m_service->url(QStringLiteral("/api/health")));
        for (const HttpResponse *r : {&ok, &missing, &health}) {
            QCOMPARE(r->header("x-content-type-options"), QByteArray("nosniff"));
            QCOMPARE(r->header("cross-origin-resource-policy"), QByteArray("same-origin"));
        }
        QCOMPARE(missing.status, 404);
        const QByteArray refused = rawExchange(
            port(), "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: x\r\n\r\n", 3000);
        QCOMPARE(rawStatus(refused), 400);
        QVERIFY(refused.contains("\r\nX-Content-Type-Options: nosniff\r\n"));
        QVERIFY(refused.contains("\r\nCross-Origin-Resource-Policy: same-origin\r\n"));
        // The page's own headers are not doubled.
        const QByteArray page = rawExchange(
            port(), "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", 3000);
        QCOMPARE(rawStatus(page), 200);
        QCOMPARE(page.count("X-Content-Type-Options"), 1);
    }

    void tooManyHeadersFailClosed() {
        TestService secured([](ServerConfig &c) { c.authToken = "s3cret"; });
        QVERIFY(secured.start());
        // Qt 6.4 silently drops *every* header past 100 fields; the token would vanish with them
        // and the request would still be dispatched. The guard refuses the request instead.
        QByteArray req = "GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: s3cret\r\n";
        for (int i = 0; i < 120; ++i)
            req += "X-Filler-" + QByteArray::number(i) + ": y\r\n";
        QCOMPARE(rawStatus(rawExchange(secured.port(), req + "\r\n", 3000)), 431);
        QByteArray huge =
            "GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: s3cret\r\nX-Big: " +
            QByteArray(40 * 1024, 'b') + "\r\n\r\n";
        QCOMPARE(rawStatus(rawExchange(secured.port(), huge, 3000)), 431);
        // Just under the limits the token still counts.
        QByteArray fine = "GET /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Auth-Token: s3cret\r\n";
        for (int i = 0; i < 50; ++i)
            fine += "X-Filler-" + QByteArray::number(i) + ": y\r\n";
        QCOMPARE(rawStatus(rawExchange(secured.port(), fine + "\r\n", 1000)), 200);
    }

    void expectContinueIsAnswered() {
        QTcpSocket s;
        QVERIFY(connectRaw(s, port()));
        const QByteArray body =
            "{\"name\":\"patient\",\"cwd\":\"" + m_service->workDir().toUtf8() + "\"}";
        QElapsedTimer t;
        t.start();
        s.write("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                "application/json\r\nExpect: 100-continue\r\nContent-Length: " +
                QByteArray::number(body.size()) + "\r\n\r\n");
        const QByteArray interim = readUntil(
            s, [](const QByteArray &b) { return b.contains("\r\n\r\n"); }, 2000);
        QVERIFY2(interim.startsWith("HTTP/1.1 100 Continue\r\n\r\n"), interim.constData());
        QVERIFY(t.elapsed() < 500);
        s.write(body);
        const QByteArray final_ = readUntil(
            s, [](const QByteArray &b) { return b.endsWith("}"); }, 2000);
        QCOMPARE(rawStatus(final_), 201);
    }

    void connectionLimit() {
        startWith([](ServerConfig &c) { c.http.limits.maxConnections = 10; });
        QList<QTcpSocket *> held;
        for (int i = 0; i < 10; ++i) {
            auto *s = new QTcpSocket(this);
            QVERIFY(connectRaw(*s, port()));
            held.append(s);
        }
        QTRY_COMPARE(m_service->app().http().openConnections(), 10);
        QCOMPARE(rawStatus(rawExchange(
                     port(), "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 2000)),
                 503);
        qDeleteAll(held);
        QTRY_COMPARE(m_service->app().http().openConnections(), 0);
        expectStillServing();
    }

    void randomBytesNeverCrash() {
        auto *rng = QRandomGenerator::global();
        for (int i = 0; i < 200; ++i) {
            QByteArray junk(int(rng->bounded(1, 600)), Qt::Uninitialized);
            for (char &ch : junk)
                ch = char(rng->bounded(256));
            if (i % 3 == 0)
                junk.prepend("POST /api/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                             "application/json\r\nContent-Length: 20\r\n");
            QTcpSocket s;

            QVERIFY(connectRaw(s, port()));
            s.write(junk + "\r\n\r\n");
            (void)QTest::qWaitFor([&] { return s.bytesToWrite() == 0; }, 200);
        }
        expectStillServing();
    }
};

QTEST_GUILESS_MAIN(TestHttpHardening)
#include "tst_http_hardening.moc"
