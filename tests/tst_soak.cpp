// Soak: the real flotillad under mixed load for FLOTILLA_SOAK_SECONDS (default 120; 30 under
// FLOTILLA_SANITIZE_RUN=1; 1800 for the hand-run version): agents streaming paced turns from the
// real CLI against the mock model (with context clears, so processes come and go), exec tasks,
// WebSocket clients connecting and disconnecting, and REST reads and writes. The child's RSS and
// open descriptors are measured with the load paused after a warm-up and at the end: RSS may
// grow by less than 5 %, descriptors by at most kFdSlack.

#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/ReliabilityKit.h"
#include "support/ServiceProcess.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QWebSocket>

#include <algorithm>
#include <memory>

using namespace flotilla::test;

namespace {

// Keep-alive connections QNetworkAccessManager may hold to the service (6 per host) and that
// the service closes only after 60 s idle, plus the observer WebSocket reconnecting: the
// descriptor count between two quiet moments may differ by these without any leak.
constexpr int kFdSlack = 8;
constexpr double kMaxRssGrowth = 0.05;
constexpr int kAgents = 2;
constexpr int kClearEveryTurns = 8;

struct Sample {
    qint64 atMs;
    qint64 rssKiB;
    int fds;
};

} // namespace

class TestSoak final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void mixedLoadKeepsMemoryAndDescriptorsFlat();

private:
    QUrl url(const QString &path) const { return localUrl(m_svc.port(), path); }
    void request(const QByteArray &method, const QString &path, const QJsonObject &body,
                 const std::function<void(int, const QByteArray &)> &done = {});
    void sendTurn(int agent);
    void onEvent(const QString &text);
    void restTick();
    void execTick();
    void wsTick();
    bool quiet() const;
    Sample sample(qint64 atMs) const;

    MockAnthropic m_mock;
    ServiceProcess m_svc;
    QNetworkAccessManager m_nam;
    QWebSocket m_observer;
    QStringList m_agentIds;
    QList<bool> m_turnOpen;
    QList<int> m_turnCount;
    bool m_paused = false;
    bool m_agentsOn = true;
    int m_inFlight = 0;
    int m_execInFlight = 0;
    int m_churnOpen = 0;
    int m_seq = 0;
    // Tallies for the report.
    int m_requests = 0;
    int m_turns = 0;
    int m_turnErrors = 0;
    int m_execs = 0;
    int m_wsSessions = 0;
    int m_clears = 0;
    QStringList m_failures; // unexpected statuses
};

void TestSoak::request(const QByteArray &method, const QString &path, const QJsonObject &body,
                       const std::function<void(int, const QByteArray &)> &done) {
    QNetworkRequest req(url(path));
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    req.setTransferTimeout(scaled(60000));
    const QByteArray bytes =
        body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact);
    QNetworkReply *reply = m_nam.sendCustomRequest(req, method, bytes);
    ++m_inFlight;
    ++m_requests;
    connect(reply, &QNetworkReply::finished, this, [this, reply, done, method, path] {
        --m_inFlight;
        reply->deleteLater();
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QByteArray answer = reply->readAll();
        if (status == 0 || status >= 500) {
            m_failures << QStringLiteral("%1 %2 -> %3 %4")
                              .arg(QString::fromLatin1(method), path)
                              .arg(status)
                              .arg(QString::fromUtf8(answer.left(200)));
        }
        if (done)
            done(status, answer);
    });
}

void TestSoak::sendTurn(int agent) {
    if (m_paused || !m_agentsOn || m_turnOpen[agent])
        return;
    m_turnOpen[agent] = true;
    const QString id = m_agentIds[agent];
    auto send = [this, agent, id] {
        request("POST", QStringLiteral("/api/agents/%1/message").arg(id),
                {{QStringLiteral("message"), QStringLiteral("soak turn %1").arg(++m_seq)}},
                [this, agent](int status, const QByteArray &) {
                    if (status != 200)
                        m_turnOpen[agent] = false; // counted as a failure already if 5xx
                });
    };
    if (++m_turnCount[agent] % kClearEveryTurns == 0) {
        ++m_clears;
        request("POST", QStringLiteral("/api/agents/bulk/clear-context"),
                {{QStringLiteral("agentIds"), QJsonArray{id}}},
                [send](int, const QByteArray &) { send(); });
    } else {
        send();
    }
}

void TestSoak::onEvent(const QString &text) {
    const QJsonObject msg = QJsonDocument::fromJson(text.toUtf8()).object();
    if (msg.value(QLatin1String("type")).toString() != QLatin1String("output"))
        return;
    const QJsonObject p = msg.value(QLatin1String("payload")).toObject();
    if (p.value(QLatin1String("isStreaming")).toBool())
        return;
    const int agent = int(m_agentIds.indexOf(p.value(QLatin1String("agentId")).toString()));
    if (agent < 0)
        return;
    ++m_turns;
    if (p.value(QLatin1String("text")).toString().startsWith(QLatin1String("Error")))
        ++m_turnErrors;
    m_turnOpen[agent] = false;
    QTimer::singleShot(50, this, [this, agent] { sendTurn(agent); });
}

void TestSoak::restTick() {
    if (m_paused || m_inFlight > 8)
        return;
    const QString id = m_agentIds[m_seq % kAgents];
    switch (m_seq++ % 8) {
    case 0:
        request("GET", QStringLiteral("/api/agents/status"), {});
        break;
    case 1:
        request("GET", QStringLiteral("/api/agents"), {});
        break;
    case 2:
        request("POST", QStringLiteral("/api/notify"),
                {{QStringLiteral("agentId"), id},
                 {QStringLiteral("title"), QStringLiteral("soak")},
                 {QStringLiteral("message"), QStringLiteral("note %1").arg(m_seq)}});
        break;
    case 3:
        request("PATCH", QStringLiteral("/api/agents/") + id,
                {{QStringLiteral("taskLabel"), QStringLiteral("label %1").arg(m_seq)}});
        break;
    case 4:
        request("GET", QStringLiteral("/api/notifications?limit=20"), {});
        break;
    case 5:
        request("GET", QStringLiteral("/api/agents/%1/history?limit=20").arg(id), {});
        break;
    case 6:
        request("PUT", QStringLiteral("/api/secrets/SOAK_%1").arg(m_seq % 4),
                {{QStringLiteral("value"), QStringLiteral("secret-%1").arg(m_seq)}});
        break;
    default:
        request("GET", QStringLiteral("/api/agents/tool-history?limit=20"), {});
        break;
    }
}

void TestSoak::execTick() {
    if (m_paused || m_execInFlight > 0)
        return;
    ++m_execInFlight;
    ++m_execs;
    request("POST", QStringLiteral("/api/exec"),
            {{QStringLiteral("agentId"), m_agentIds[m_execs % kAgents]},
             {QStringLiteral("command"),
              QStringLiteral("seq 1 20000 | tail -n 2; echo {{SOAK_1}} >&2")}},
            [this](int, const QByteArray &) { --m_execInFlight; });
}

void TestSoak::wsTick() {
    if (m_paused || m_churnOpen >= 3)
        return;
    ++m_churnOpen;
    ++m_wsSessions;
    auto *ws = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, this);
    auto closed = std::make_shared<bool>(false);
    auto finish = [this, ws, closed] {
        if (*closed)
            return;
        *closed = true;
        --m_churnOpen;
        ws->deleteLater();
    };
    connect(ws, &QWebSocket::textMessageReceived, ws, [ws](const QString &t) {
        // Stay for the snapshot and a little of the stream, then leave (sometimes abruptly).
        if (t.contains(QLatin1String("\"work_plans_update\"")))
            QTimer::singleShot(300, ws, [ws] {
                if (QRandomGenerator::global()->bounded(2))
                    ws->close();
                else
                    ws->abort();
            });
    });
    connect(ws, &QWebSocket::disconnected, this, finish);
    QTimer::singleShot(scaled(10000), ws, [ws] { ws->abort(); });
    ws->open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(m_svc.port())));
}

bool TestSoak::quiet() const {
    return m_inFlight == 0 && m_execInFlight == 0 && m_churnOpen == 0 &&
           std::none_of(m_turnOpen.cbegin(), m_turnOpen.cend(), [](bool b) { return b; });
}

Sample TestSoak::sample(qint64 atMs) const {
    return {atMs, rssKiB(m_svc.pid()), fdCount(m_svc.pid())};
}

void TestSoak::mixedLoadKeepsMemoryAndDescriptorsFlat() {
    const int defaultSeconds = envFlag("FLOTILLA_SANITIZE_RUN") ? 30 : 120;
    const int seconds = qMax(20, envInt("FLOTILLA_SOAK_SECONDS", defaultSeconds));
    // Bounded caches fill during the warm-up: SQLite's page cache (2 MiB at most) follows the
    // prefilled database; the history index cache keeps 256 session files, and this load starts
    // a new session file about every 2.5 s (a context clear every 8th turn of 2 agents), so that
    // cache is full only after about 11 minutes. A 30-minute run measures its last 18 minutes.
    const int warmupSeconds = qBound(10, seconds * 2 / 5, 720);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString home = tmp.path() + QStringLiteral("/home");
    QVERIFY(QDir().mkpath(home + QStringLiteral("/project")));
    QVERIFY(m_mock.start());
    // Paced streams: 20 deltas 20 ms apart (about half a second per turn), topped up forever.
    auto topUp = [this] {
        while (m_mock.pendingTurns() < 6)
            m_mock.queueText(QStringLiteral("streaming soak answer with some words in it "), 20,
                             20);
    };
    topUp();
    connect(&m_mock, &MockAnthropic::requestReceived, this, topUp);

    QProcessEnvironment env = m_mock.claudeEnvironment(home);
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    env.remove(QStringLiteral("AUTH_TOKEN"));
    env.remove(QStringLiteral("FLOTILLA_PORT"));
    // Unconfined agents, as every suite but tst_sandbox_agents runs them (support/TestService).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    QVERIFY2(m_svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data"),
                          QStringLiteral("--claude-bin"), MockAnthropic::claudeBinary()},
                         env, scaled(10000)),
             m_svc.stdErr().constData());

    HttpClient http;
    for (int i = 0; i < kAgents; ++i) {
        const HttpResponse r =
            http.post(url(QStringLiteral("/api/agents")),
                      {{QStringLiteral("name"), QStringLiteral("soak-%1").arg(i)},
                       {QStringLiteral("cwd"), QString(home + QStringLiteral("/project"))},
                       {QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        QCOMPARE(r.status, 201);
        m_agentIds << r.object().value(QLatin1String("id")).toString();
        m_turnOpen << false;
        m_turnCount << 0;
    }
    for (int i = 0; i < 4; ++i) {
        QVERIFY(http.send("PUT", url(QStringLiteral("/api/secrets/SOAK_%1").arg(i)),
                          "{\"value\":\"s\"}")
                    .status < 300);
    }

    // The notification table keeps the newest 1,000: fill it now, so the database (and SQLite's
    // page cache over it) is at its steady size before the warm-up ends.
    for (int i = 0; i < 1000; ++i) {
        if (m_inFlight >= 8)
            QVERIFY(QTest::qWaitFor([&] { return m_inFlight < 8; }, scaled(10000)));
        request("POST", QStringLiteral("/api/notify"),
                {{QStringLiteral("agentId"), m_agentIds[i % kAgents]},
                 {QStringLiteral("title"), QStringLiteral("prefill")},
                 {QStringLiteral("message"), QStringLiteral("note %1").arg(i)}});
    }
    QVERIFY(QTest::qWaitFor([&] { return m_inFlight == 0; }, scaled(30000)));

    connect(&m_observer, &QWebSocket::textMessageReceived, this, &TestSoak::onEvent);
    m_observer.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(m_svc.port())));
    QTRY_VERIFY_WITH_TIMEOUT(m_observer.state() == QAbstractSocket::ConnectedState, 5000);

    QTimer rest, exec, ws, report;
    connect(&rest, &QTimer::timeout, this, &TestSoak::restTick);
    connect(&exec, &QTimer::timeout, this, &TestSoak::execTick);
    connect(&ws, &QTimer::timeout, this, &TestSoak::wsTick);
    QElapsedTimer clock;
    clock.start();
    QList<Sample> samples;
    connect(&report, &QTimer::timeout, this, [&] {
        samples << sample(clock.elapsed());
        qInfo("soak t=%4llds rss=%lld KiB fds=%d turns=%d execs=%d ws=%d requests=%d",
              samples.constLast().atMs / 1000, samples.constLast().rssKiB, samples.constLast().fds,
              m_turns, m_execs, m_wsSessions, m_requests);
    });
    // FLOTILLA_SOAK_LOADS (default "agents,rest,exec,ws") picks the loads, to find what grows.
    const QStringList loads = QString::fromLocal8Bit(qgetenv("FLOTILLA_SOAK_LOADS"))
                                  .split(QLatin1Char(','), Qt::SkipEmptyParts);
    auto wanted = [&](const char *load) {
        return loads.isEmpty() || loads.contains(QLatin1String(load));
    };
    m_agentsOn = wanted("agents");
    if (wanted("rest"))
        rest.start(25);
    if (wanted("exec"))
        exec.start(300);
    if (wanted("ws"))
        ws.start(200);
    report.start(qBound(5, seconds / 12, 60) * 1000);
    for (int i = 0; i < kAgents; ++i)
        sendTurn(i);

    // Pauses the load, waits until nothing is in flight, lets the service settle, measures.
    auto quiesce = [&](const char *label) -> Sample {
        m_paused = true;
        const bool settled = QTest::qWaitFor([&] { return quiet(); }, scaled(60000));
        QTest::qWait(1000); // deleteLater, closed sockets and child reaping run their course
        const Sample s = sample(clock.elapsed());
        qInfo("soak %s (quiet=%d): rss=%lld KiB fds=%d", label, int(settled), s.rssKiB, s.fds);
        m_paused = false;
        for (int i = 0; i < kAgents; ++i)
            sendTurn(i);
        return s;
    };

    QTest::qWait(warmupSeconds * 1000);
    const Sample base = quiesce("after warm-up");
    QTest::qWait(qMax(1, seconds - warmupSeconds) * 1000);
    const Sample end = quiesce("at the end");
    m_paused = true;
    rest.stop();
    exec.stop();
    ws.stop();
    report.stop();
    QVERIFY(QTest::qWaitFor([&] { return quiet(); }, scaled(60000)));

    const HttpResponse health = http.get(url(QStringLiteral("/api/health")));
    QCOMPARE(health.status, 200);
    QCOMPARE(health.object().value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    m_observer.close();
    QVERIFY(m_svc.terminate(scaled(10000)));
    QCOMPARE(m_svc.exitCode(), 0);

    const double growth = double(end.rssKiB - base.rssKiB) / double(base.rssKiB);
    qInfo("soak summary: %ds (warm-up %ds), %d turns (%d ended in error), %d context clears, "
          "%d exec tasks, %d WebSocket sessions, %d REST requests, %d mock requests; "
          "RSS %lld -> %lld KiB (%+.2f %%), fds %d -> %d",
          seconds, warmupSeconds, m_turns, m_turnErrors, m_clears, m_execs, m_wsSessions,
          m_requests, m_mock.requestCount(), base.rssKiB, end.rssKiB, growth * 100.0, base.fds,
          end.fds);
    QVERIFY2(m_failures.isEmpty(), qPrintable(m_failures.mid(0, 5).join(QLatin1Char('\n'))));
    QVERIFY(!m_agentsOn || m_turns >= kAgents * 4);
    QCOMPARE(m_turnErrors, 0);
    QVERIFY(!wanted("exec") || m_execs >= 10);
    QVERIFY(base.rssKiB > 0 && end.rssKiB > 0);
    // Under ASan the allocator's quarantine keeps freed memory resident by design: RSS says
    // nothing about leaks there (LeakSanitizer does), so only descriptors are checked.
    if (!envFlag("FLOTILLA_SANITIZE_RUN"))
        QVERIFY2(growth < kMaxRssGrowth,
                 qPrintable(QStringLiteral("RSS grew %1 %").arg(growth * 100)));
    QVERIFY2(end.fds <= base.fds + kFdSlack,
             qPrintable(QStringLiteral("fds %1 -> %2").arg(base.fds).arg(end.fds)));
}

int main(int argc, char **argv) {
    // The hand-run soak lasts longer than Qt Test's 5-minute watchdog.
    if (!qEnvironmentVariableIsSet("QTEST_FUNCTION_TIMEOUT")) {
        const int seconds = qMax(120, envInt("FLOTILLA_SOAK_SECONDS", 120));
        qputenv("QTEST_FUNCTION_TIMEOUT", QByteArray::number((seconds + 600) * 1000));
    }
    QCoreApplication app(argc, argv);
    TestSoak test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_soak.moc"
