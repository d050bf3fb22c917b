// Buildings' processes over time, against the real service in-process (and the real flotillad
// for its shutdown): restart with backoff (delays shortened through
// BuildingSupervisor::setTiming), the backoff reset after a long run, the restart policies, stop
// and restart ending the whole process group, autostart across a service restart, and no orphan
// when the service stops. The routes and the output are in tst_buildings.

#include "support/BuildingFixture.h"
#include "support/ServiceProcess.h"

#include <QElapsedTimer>
#include <QRegularExpression>

#include <atomic>
#include <csignal>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;
namespace ss = wire::shaping::state;

// The service's clock, set by the test (the backoff reset after a long run).
std::atomic<qint64> g_now{1'800'000'000'000};

} // namespace

class TestBuildingRuns final : public QObject, private BuildingFixture {
    Q_OBJECT

private Q_SLOTS:
    void cleanup() {
        ws.reset();
        http.reset();
        svc.reset();
    }

    void crashRestartsWithBackoff() {
        QVERIFY(boot());
        const QString id =
            create(QStringLiteral("crasher"), argv({"sh", "-c", "echo boom; exit 3"}));
        QElapsedTimer clock;
        clock.start();
        QList<qint64> startedAt;
        connect(&ws->socket(), &QWebSocket::textMessageReceived, this, [&](const QString &t) {
            const QJsonObject m = QJsonDocument::fromJson(t.toUtf8()).object();
            const QJsonObject p = m.value(QLatin1String("payload")).toObject();
            if (m.value(QLatin1String("type")).toString() == sm::BuildingUpdated &&
                str(p, k::Id) == id && str(p, sk::State) == ss::Starting)
                startedAt.append(clock.elapsed());
        });
        QCOMPARE(post(at(id, "start")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(startedAt.size() >= 5, 10000);
        QCOMPARE(post(at(id, "stop")).status, 200);
        QCOMPARE(str(building(id), sk::State), QString(ss::Stopped));

        // 100, 200, 400, then the 400 ms cap.
        const QString notes = streamed(id, wire::shaping::stream::Stderr);
        const QRegularExpression delayRe(QStringLiteral("restarting in (\\d+) ms"));
        QList<int> delays;
        for (auto it = delayRe.globalMatch(notes); it.hasNext();)
            delays.append(it.next().captured(1).toInt());
        QCOMPARE(delays.mid(0, 4), (QList<int>{100, 200, 400, 400}));
        QVERIFY(notes.contains(QStringLiteral("exited with code 3")));
        for (int i = 1; i < 5; ++i) {
            const qint64 gap = startedAt[i] - startedAt[i - 1];
            QVERIFY2(gap >= delays[i - 1] * 9 / 10,
                     qPrintable(QStringLiteral("gap %1 < %2").arg(gap).arg(delays[i - 1])));
        }
        QVERIFY(startedAt[3] - startedAt[2] > startedAt[1] - startedAt[0]); // it grew
        QList<QJsonObject> updates = events(sm::BuildingUpdated, id);
        QJsonObject lastCrash;
        for (const QJsonObject &u : updates) {
            if (str(u, sk::State) == ss::Crashed)
                lastCrash = u;
        }
        QCOMPARE(lastCrash.value(sk::ExitCode), QJsonValue(3));
        QVERIFY(lastCrash.value(sk::Restarts).toInt() >= 3);
        QVERIFY(building(id).value(sk::Restarts).toInt() >= 4);
        QVERIFY(logLines(id).count(QStringLiteral("boom")) >= startedAt.size() - 1);
        // Stopped, it stays so: many backoff periods later, no start.
        const qsizetype starts = startedAt.size();
        QTest::qWait(1000);
        QCOMPARE(startedAt.size(), starts);
    }

    void backoffResetsAfterALongRun() {
        QVERIFY(boot([](ServerConfig &c) { c.clock = [] { return g_now.load(); }; }));
        const QString id = create(QStringLiteral("killed"), argv({"sleep", "30"}));
        QCOMPARE(post(at(id, "start")).status, 200);
        auto crashOnce = [&](int expectedDelay) {
            QVERIFY(waitState(id, ss::Running));
            const qint64 pid = building(id).value(sk::Pid).toInteger();
            ::kill(pid_t(pid), SIGKILL);
            const QString note = QStringLiteral("restarting in %1 ms").arg(expectedDelay);
            QTRY_VERIFY(streamed(id, wire::shaping::stream::Stderr).endsWith(note + u'\n'));
            QTRY_VERIFY(building(id).value(sk::Pid).toInteger() != pid);
        };
        crashOnce(100);
        crashOnce(200);
        QVERIFY(waitState(id, ss::Running));
        g_now += 61'000; // up for 61 s by the service's clock: not a crash loop
        QCOMPARE(building(id).value(sk::UptimeSeconds).toInt(), 61);
        crashOnce(100);
        QTRY_COMPARE(building(id).value(sk::Restarts), QJsonValue(3));
    }

    void restartPolicy_data() {
        QTest::addColumn<QString>("policy");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("state");
        QTest::addColumn<bool>("restarts");
        QTest::newRow("no, crash") << "no" << 3 << QString(ss::Crashed) << false;
        QTest::newRow("on-failure, exit 0") << "on-failure" << 0 << QString(ss::Exited) << false;
        QTest::newRow("always, exit 0") << "always" << 0 << QString(ss::Exited) << true;
    }
    void restartPolicy() {
        QFETCH(QString, policy);
        QFETCH(int, exitCode);
        QFETCH(QString, state);
        QFETCH(bool, restarts);
        QVERIFY(boot());
        const QString id = create(QStringLiteral("p"),
                                  QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                             QStringLiteral("exit %1").arg(exitCode)},
                                  {{sk::Restart, policy}});
        QCOMPARE(post(at(id, "start")).status, 200);
        QTRY_VERIFY(states(id).contains(state));
        if (restarts) {
            QTRY_VERIFY(building(id).value(sk::Restarts).toInt() >= 2);
            QCOMPARE(post(at(id, "stop")).status, 200);
        } else {
            QTest::qWait(500); // several restart delays: none came
            QCOMPARE(str(building(id), sk::State), state);
            QCOMPARE(building(id).value(sk::Restarts), QJsonValue(0));
            QCOMPARE(building(id).value(sk::ExitCode), QJsonValue(exitCode));
        }
    }

    void stopEndsTheWholeGroup_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("minMs");
        QTest::newRow("SIGTERM") << "sleep 60 & echo child $!; wait" << 0;
        // TERM ignored by the shell and its child: SIGKILL after the (shortened) grace.
        QTest::newRow("SIGKILL") << "trap '' TERM; sleep 60 & echo child $!; wait" << 1500;
    }
    void stopEndsTheWholeGroup() {
        QFETCH(QString, script);
        QFETCH(int, minMs);
        QVERIFY(boot());
        const QString id = create(QStringLiteral("group"),
                                  QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"), script});
        const qint64 pgid = post(at(id, "start")).object().value(sk::Pid).toInteger();
        QTRY_VERIFY(!logLines(id).isEmpty());
        const qint64 child = logLines(id).first().section(u' ', 1).toLongLong();
        QVERIFY(child > 0 && processAlive(child) && groupAlive(pgid));
        QElapsedTimer t;
        t.start();
        const HttpResponse r = post(at(id, "restart"));
        QCOMPARE(r.status, 200);
        QVERIFY(t.elapsed() >= minMs * 9 / 10);
        QTRY_VERIFY(!processAlive(child));
        QTRY_VERIFY(!groupAlive(pgid));
        const qint64 next = r.object().value(sk::Pid).toInteger();
        QVERIFY(next > 0 && next != pgid && groupAlive(next));
        QCOMPARE(r.object().value(sk::Restarts), QJsonValue(0));
        // DELETE stops it first.
        QCOMPARE(del(at(id)).status, 204);
        QTRY_VERIFY(!groupAlive(next));
    }

    void autostartAndShutdownInProcess() {
        QVERIFY(boot());
        const QString on =
            create(QStringLiteral("on"), argv({"sleep", "30"}), {{sk::Autostart, true}});
        const QString off = create(QStringLiteral("off"), argv({"sleep", "30"}));
        // Ignores SIGTERM: the shutdown's grace (shortened) ends it.
        const QString stubborn =
            create(QStringLiteral("stubborn"), argv({"sh", "-c", "trap '' TERM; exec sleep 30"}));
        const qint64 pid = post(at(stubborn, "start")).object().value(sk::Pid).toInteger();
        QVERIFY(groupAlive(pid));
        ws.reset();
        svc->stop();
        QTRY_VERIFY(!groupAlive(pid));
        QVERIFY(svc->start() && connected());
        const QJsonObject b = building(on);
        QVERIFY(str(b, sk::State) == ss::Starting || str(b, sk::State) == ss::Running);
        QVERIFY(processAlive(b.value(sk::Pid).toInteger()));
        QCOMPARE(str(building(off), sk::State), QString(ss::Stopped));
        QCOMPARE(str(building(stubborn), sk::State), QString(ss::Stopped));
        QVERIFY(waitState(on, ss::Running));
    }

    // The real binary: SIGTERM leaves no process of any building, and autostart buildings start
    // again with the next flotillad.
    void serviceStopLeavesNoProcess() {
        QTemporaryDir home;
        QVERIFY(home.isValid());
        const QString work = home.path() + QStringLiteral("/work");
        QVERIFY(QDir().mkpath(work));
        const QStringList args{QStringLiteral("--data-dir"), home.path() + QStringLiteral("/data")};
        HttpClient client;
        QString id;
        for (int round = 0; round < 2; ++round) {
            ServiceProcess flotillad;
            QVERIFY2(flotillad.start(args, hermeticEnv(home.path())),
                     flotillad.stdErr().constData());
            auto urlOf = [&](const QString &path) { return localUrl(flotillad.port(), path); };
            if (round == 0) {
                const HttpResponse r = client.post(
                    urlOf(QStringLiteral("/api/buildings")),
                    QJsonObject{{k::Name_, QStringLiteral("server")},
                                {sk::Command, argv({"sh", "-c", "sleep 60 & echo child $!; wait"})},
                                {k::Cwd, work},
                                {sk::Autostart, true}});
                QCOMPARE(r.status, 201);
                id = str(r.object(), k::Id);
                QCOMPARE(client
                             .post(urlOf(QStringLiteral("/api/buildings/") + id +
                                         QStringLiteral("/start")),
                                   {})
                             .status,
                         200);
            }
            const QUrl logsUrl =
                urlOf(QStringLiteral("/api/buildings/") + id + QStringLiteral("/logs"));
            QTRY_VERIFY(!client.get(logsUrl).object().value(sk::Lines).toArray().isEmpty());
            const QString line = str(
                client.get(logsUrl).object().value(sk::Lines).toArray().last().toObject(), k::Text);
            const qint64 child = line.section(u' ', 1).toLongLong();
            const qint64 pgid = client.get(urlOf(QStringLiteral("/api/buildings/") + id))
                                    .object()
                                    .value(sk::Pid)
                                    .toInteger();
            QVERIFY(child > 0 && pgid > 0 && processAlive(child) && groupAlive(pgid));
            QVERIFY(flotillad.terminate());
            QCOMPARE(flotillad.exitCode(), 0);
            QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid) && !processAlive(child), 3000);
        }
    }
};

QTEST_GUILESS_MAIN(TestBuildingRuns)
#include "tst_building_runs.moc"
