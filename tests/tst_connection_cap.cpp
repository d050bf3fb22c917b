// The open-connection cap under a trickling flood: 1,000 connections that each send a
// request head a few bytes at a time hold every slot, and a normal request still gets its answer
// at once, because a newcomer at the cap evicts the oldest connection whose head is unfinished.
// Real sockets against the in-process service; the time of the normal request is printed.

#include "support/HttpClient.h"
#include "support/TestService.h"

#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTest>

#include <sys/resource.h>

#include <memory>
#include <vector>

using namespace flotilla;
using namespace flotilla::test;

namespace {
constexpr int kTricklers = 1000;
} // namespace

class TestConnectionCap : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() {
        // Both ends live in this process: 2,000 sockets and then some.
        rlimit files{};
        QVERIFY(::getrlimit(RLIMIT_NOFILE, &files) == 0);
        files.rlim_cur = files.rlim_max;
        QVERIFY(::setrlimit(RLIMIT_NOFILE, &files) == 0);
        if (files.rlim_cur < 2 * kTricklers + 200)
            QSKIP("RLIMIT_NOFILE's hard limit is too low for 1,000 connections at both ends");
    }

    void tricklingClientsCannotLockTheOwnerOut() {
        TestService svc([](ServerConfig &c) {
            c.http.limits.maxConnections = kTricklers;
            c.http.limits.headerTimeoutMs = 60'000; // the flood outlives the test
            c.http.limits.evictUnfinishedAfterMs = 300;
        });
        QVERIFY2(svc.start(), qPrintable(svc.lastError()));
        std::vector<std::unique_ptr<QTcpSocket>> flood;
        flood.reserve(kTricklers);
        QElapsedTimer floodAge;
        floodAge.start();
        // In batches the listen backlog takes whole: past it the kernel answers with SYN
        // cookies and drops the handshake's last ACK, leaving a client that believes it is
        // connected to nobody.
        constexpr int kBatch = 100;
        for (int i = 0; i < kTricklers; ++i) {
            auto s = std::make_unique<QTcpSocket>();
            s->connectToHost(QHostAddress::LocalHost, svc.port());
            flood.push_back(std::move(s));
            if ((i + 1) % kBatch == 0) {
                QTRY_COMPARE_WITH_TIMEOUT(svc.app().http().openConnections(), i + 1, 10000);
                // A head's age counts from its accept, which a loaded machine may do well after
                // connectToHost: count from when the first batch is known to be accepted.
                if (i + 1 == kBatch)
                    floodAge.restart();
            }
        }
        QVERIFY(std::all_of(flood.begin(), flood.end(), [](const auto &s) {
            return s->state() == QAbstractSocket::ConnectedState;
        }));
        // Each one starts a head and keeps it going, a line at a time, never finishing it.
        for (auto &s : flood)
            s->write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        for (int round = 0; round < 3; ++round) {
            for (auto &s : flood)
                s->write("X-Slow: " + QByteArray::number(round) + "\r\n");
            QTRY_VERIFY(std::all_of(flood.begin(), flood.end(),
                                    [](const auto &s) { return s->bytesToWrite() == 0; }));
        }
        QCOMPARE(svc.app().http().openConnections(), kTricklers);
        QTRY_VERIFY(floodAge.elapsed() > 300); // the oldest heads are past evictUnfinishedAfterMs

        QElapsedTimer timer;
        timer.start();
        const QByteArray answer = rawExchange(
            svc.port(), "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            5000);
        const qint64 ms = timer.elapsed();
        qInfo("a normal request with %d trickling connections open: %lld ms", kTricklers, ms);
        QCOMPARE(rawStatus(answer), 200);
        QVERIFY2(ms < 1000, qPrintable(QString::number(ms)));
        // Exactly one trickler made room; the others are still connected.
        QTRY_COMPARE(std::count_if(flood.begin(), flood.end(),
                                   [](const auto &s) {
                                       return s->state() != QAbstractSocket::ConnectedState;
                                   }),
                     qsizetype(1));
    }

    // A connection that sends whole requests is never the one evicted.
    void finishedHeadsAreNotEvicted() {
        TestService svc([](ServerConfig &c) {
            c.http.limits.maxConnections = 3;
            c.http.limits.evictUnfinishedAfterMs = 100;
        });
        QVERIFY(svc.start());
        QTcpSocket keeper;
        QVERIFY(connectRaw(keeper, svc.port()));
        keeper.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        QCOMPARE(rawStatus(readUntil(
                     keeper, [](const QByteArray &b) { return b.endsWith("}"); }, 3000)),
                 200);
        QTcpSocket slow1, slow2;
        QVERIFY(connectRaw(slow1, svc.port()));
        QVERIFY(connectRaw(slow2, svc.port()));
        slow1.write("GET /api/health HTTP/1.1\r\n");
        slow2.write("GET /api/health HTTP/1.1\r\n");
        QTRY_COMPARE(svc.app().http().openConnections(), 3);
        // Refused (503) while the unfinished heads are younger than evictUnfinishedAfterMs.
        QVERIFY(QTest::qWaitFor(
            [&] {
                return rawStatus(rawExchange(svc.port(),
                                             "GET /api/health HTTP/1.1\r\nHost: "
                                             "127.0.0.1\r\nConnection: close\r\n\r\n",
                                             3000)) == 200;
            },
            5000));
        QCOMPARE(keeper.state(), QAbstractSocket::ConnectedState);
        QTRY_VERIFY(slow1.state() != QAbstractSocket::ConnectedState);
        QCOMPARE(slow2.state(), QAbstractSocket::ConnectedState);
    }
};

QTEST_GUILESS_MAIN(TestConnectionCap)
#include "tst_connection_cap.moc"
