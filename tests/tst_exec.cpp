// POST /api/exec and the exec tasks against the real service in-process, real bash, real sockets:
// streaming and event order, exit status, timeout, kill of the whole process group, limits,
// batching, the 1 MiB tail, and every refusal. Secrets and masking are in tst_secrets.cpp.

#include "support/ExecFixture.h"

#include <QRegularExpression>

using namespace flotilla;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, QLatin1String key) {
    return o.value(key).toString();
}

// The numbers a command printed, one per line ("$$", "$!"...), once it printed `count` of them.
QList<qint64> numbersIn(const QString &text) {
    QList<qint64> out;
    for (const QString &line : text.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        out.append(line.trimmed().toLongLong());
    return out;
}

} // namespace

class TestExec final : public QObject {
    Q_OBJECT

    ExecFixture f;

    // Starts `command` in flight and waits until it printed `lines` lines; returns their numbers.
    QList<qint64> startAndRead(const QString &command, int lines, std::unique_ptr<PendingExec> *out,
                               QString *taskId) {
        *out = f.execAsync(f.body(command));
        *taskId = f.startedTask();
        if (taskId->isEmpty())
            return {};
        const QString id = *taskId;
        (void)QTest::qWaitFor([&] { return numbersIn(f.streamed(id)).size() >= lines; }, 10000);
        return numbersIn(f.streamed(id));
    }

private Q_SLOTS:
    void init() { QVERIFY2(f.start(), qPrintable(f.svc->lastError())); }
    void cleanup() { f.reset(); }

    void streamsOutputAndAnswersWhenDone() {
        const HttpResponse r =
            f.exec(QStringLiteral("echo out1; echo err1 >&2; sleep 0.1; echo out2"));
        QCOMPARE(r.status, 200);
        const QJsonObject res = r.object();
        const QString id = str(res, xk::TaskId);
        QVERIFY(!id.isEmpty());
        QCOMPARE(res.value(QStringLiteral("success")), QJsonValue(true));
        QCOMPARE(res.value(xk::ExitCode), QJsonValue(0));
        QCOMPARE(res.value(xk::Killed), QJsonValue(false));
        QCOMPARE(res.value(xk::TimedOut), QJsonValue(false));
        QCOMPARE(res.value(xk::Truncated), QJsonValue(false));
        QCOMPARE(res.value(xk::Signal), QJsonValue(QJsonValue::Null));
        QVERIFY(res.value(xk::Duration).toInteger() >= 100);
        const QString output = str(res, xk::Output);
        // Both streams, as they arrived (out1 and err1 in either order, out2 after the sleep).
        QVERIFY2(output.size() == 15 && output.endsWith(QStringLiteral("out2\n")) &&
                     output.contains(QStringLiteral("out1\n")) &&
                     output.contains(QStringLiteral("err1\n")),
                 qPrintable(output));

        QVERIFY(f.waitCompleted(id));
        const QList<QJsonObject> ev = f.events(id);
        QVERIFY(ev.size() >= 4);
        QCOMPARE(str(ev.first(), QLatin1String("@type")), QString(xm::ExecTaskStarted));
        QCOMPARE(str(ev.last(), QLatin1String("@type")), QString(xm::ExecTaskCompleted));
        for (qsizetype i = 1; i + 1 < ev.size(); ++i)
            QCOMPARE(str(ev[i], QLatin1String("@type")), QString(xm::ExecTaskOutput));

        const QJsonObject started = ev.first();
        QCOMPARE(str(started, QLatin1String("agentId")), f.agentId);
        QCOMPARE(str(started, QLatin1String("agentName")), QStringLiteral("runner"));
        QCOMPARE(str(started, xk::Command),
                 QStringLiteral("echo out1; echo err1 >&2; sleep 0.1; echo out2"));
        QCOMPARE(str(started, QLatin1String("cwd")), QDir(f.svc->workDir()).canonicalPath());
        QCOMPARE(started.value(xk::TimeoutMs), QJsonValue(QJsonValue::Null));
        QCOMPARE(f.streamed(id, 0), QStringLiteral("out1\nout2\n"));
        QCOMPARE(f.streamed(id, 1), QStringLiteral("err1\n"));
        for (const QJsonObject &e : f.events(id, xm::ExecTaskOutput))
            QCOMPARE(str(e, QLatin1String("agentId")), f.agentId);

        const QJsonObject done = ev.last();
        QCOMPARE(str(done, QLatin1String("agentId")), f.agentId);
        QCOMPARE(done.value(xk::ExitCode), QJsonValue(0));
        QCOMPARE(done.value(QStringLiteral("success")), QJsonValue(true));
    }

    void nonzeroExit() {
        const HttpResponse r = f.exec(QStringLiteral("echo failing >&2; exit 3"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("success")), QJsonValue(false));
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(3));
        QCOMPARE(r.object().value(xk::Killed), QJsonValue(false));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("failing\n"));
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.events(id, xm::ExecTaskCompleted).first().value(xk::ExitCode), QJsonValue(3));
    }

    void endedBySignal() {
        const HttpResponse r = f.exec(QStringLiteral("kill -TERM $$"));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(QJsonValue::Null));
        QCOMPARE(r.object().value(xk::Signal), QJsonValue(15));
        QCOMPARE(r.object().value(xk::Killed), QJsonValue(false));
        QCOMPARE(r.object().value(QStringLiteral("success")), QJsonValue(false));
    }

    void cwdDefaultsToTheAgentsAndCanBeGiven() {
        HttpResponse r = f.exec(QStringLiteral("pwd"));
        QCOMPARE(str(r.object(), xk::Output), QDir(f.svc->workDir()).canonicalPath() + u'\n');
        QDir(f.svc->workDir()).mkdir(QStringLiteral("sub"));
        const QString sub = QDir(f.svc->workDir()).canonicalPath() + QStringLiteral("/sub");
        r = f.exec(QStringLiteral("pwd"), {{QStringLiteral("cwd"), sub}});
        QCOMPARE(str(r.object(), xk::Output), sub + u'\n');
    }

    void stdinIsEmpty() {
        const HttpResponse r = f.exec(QStringLiteral("cat; echo done"));
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("done\n"));
    }

    void timeoutKillsTheCommand() {
        const HttpResponse r =
            f.exec(QStringLiteral("echo begun; sleep 30"), {{xk::TimeoutMs, 300}});
        QCOMPARE(r.status, 200);
        const QJsonObject res = r.object();
        QCOMPARE(res.value(xk::ExitCode), QJsonValue(QJsonValue::Null));
        QCOMPARE(res.value(xk::TimedOut), QJsonValue(true));
        QCOMPARE(res.value(xk::Killed), QJsonValue(true));
        QCOMPARE(res.value(QStringLiteral("success")), QJsonValue(false));
        QCOMPARE(str(res, xk::Output), QStringLiteral("begun\n"));
        const qint64 ms = res.value(xk::Duration).toInteger();
        QVERIFY2(ms >= 300 && ms < 5000, qPrintable(QString::number(ms)));
        const QString id = str(res, xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        const QJsonObject done = f.events(id, xm::ExecTaskCompleted).first();
        QCOMPARE(done.value(xk::TimedOut), QJsonValue(true));
        QCOMPARE(done.value(xk::ExitCode), QJsonValue(QJsonValue::Null));
        QCOMPARE(f.events(id, xm::ExecTaskStarted).first().value(xk::TimeoutMs), QJsonValue(300));
    }

    void deleteKillsTheWholeGroup() {
        std::unique_ptr<PendingExec> pending;
        QString id;
        // $$ is the shell, the group leader; $! the child it waits for.
        const QList<qint64> pids =
            startAndRead(QStringLiteral("echo $$; sleep 60 & echo $!; wait"), 2, &pending, &id);
        QCOMPARE(pids.size(), 2);
        const qint64 pgid = pids[0];
        QVERIFY(groupAlive(pgid));
        QVERIFY(processAlive(pids[1]));

        const QJsonArray tasks = f.get(QStringLiteral("/api/exec/tasks/") + f.agentId)
                                     .object()
                                     .value(xk::Tasks)
                                     .toArray();
        QCOMPARE(tasks.size(), 1);
        QCOMPARE(str(tasks[0].toObject(), xk::TaskId), id);
        QCOMPARE(str(tasks[0].toObject(), xk::Command),
                 QStringLiteral("echo $$; sleep 60 & echo $!; wait"));
        QVERIFY(tasks[0].toObject().value(xk::StartedAt).toInteger() > 1'600'000'000'000);

        QCOMPARE(f.del(QStringLiteral("/api/exec/tasks/") + id).status, 204);
        const HttpResponse r = pending->wait();
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(QJsonValue::Null));
        QCOMPARE(r.object().value(xk::Killed), QJsonValue(true));
        QCOMPARE(r.object().value(xk::TimedOut), QJsonValue(false));
        QCOMPARE(r.object().value(QStringLiteral("success")), QJsonValue(false));
        QVERIFY(r.object().value(xk::Duration).toInteger() < 5000);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 5000);
        QVERIFY(!processAlive(pids[1]));
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.events(id, xm::ExecTaskCompleted).first().value(xk::Killed), QJsonValue(true));

        QCOMPARE(f.get(QStringLiteral("/api/exec/tasks/") + f.agentId).object().value(xk::Tasks),
                 QJsonValue(QJsonArray()));
        QCOMPARE(f.del(QStringLiteral("/api/exec/tasks/") + id).status, 404);
    }

    void sigtermIgnoredThenSigkill() {
        std::unique_ptr<PendingExec> pending;
        QString id;
        const QList<qint64> pids =
            startAndRead(QStringLiteral("trap '' TERM; echo $$; sleep 60"), 1, &pending, &id);
        QCOMPARE(pids.size(), 1);
        QCOMPARE(f.del(QStringLiteral("/api/exec/tasks/") + id).status, 204);
        const HttpResponse r = pending->wait();
        QCOMPARE(r.object().value(xk::Signal), QJsonValue(9));
        QCOMPARE(r.object().value(xk::Killed), QJsonValue(true));
        QVERIFY(r.object().value(xk::Duration).toInteger() >= 2000); // the grace period
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pids[0]), 5000);
    }

    void backgroundLeftoversEndWithTheTask() {
        const HttpResponse r = f.exec(QStringLiteral("sleep 60 & echo $!"));
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(0));
        const qint64 child = str(r.object(), xk::Output).trimmed().toLongLong();
        QVERIFY(child > 0);
        QTRY_VERIFY_WITH_TIMEOUT(!processAlive(child), 5000);
    }

    void deletingTheAgentKillsItsTasks() {
        auto pending = f.execAsync(f.body(QStringLiteral("sleep 60")));
        QVERIFY(!f.startedTask().isEmpty());
        QCOMPARE(f.del(QStringLiteral("/api/agents/") + f.agentId).status, 204);
        const HttpResponse r = pending->wait();
        QCOMPARE(r.object().value(xk::Killed), QJsonValue(true));
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(QJsonValue::Null));
    }

    void concurrentTaskLimit() {
        std::vector<std::unique_ptr<PendingExec>> running;
        for (int i = 0; i < 8; ++i)
            running.push_back(f.execAsync(f.body(QStringLiteral("sleep 60"))));
        QVERIFY(!f.startedTask(7).isEmpty());
        const HttpResponse refused = f.exec(QStringLiteral("true"));
        QCOMPARE(refused.status, 409);
        QCOMPARE(str(refused.object(), QLatin1String("code")), QStringLiteral("too_many_tasks"));
        // Another agent has its own allowance.
        const QString other = f.createAgent(QStringLiteral("other"));
        QJsonObject b = f.body(QStringLiteral("echo ok"));
        b.insert(QStringLiteral("agentId"), other);
        QCOMPARE(f.http->post(f.url(QStringLiteral("/api/exec")), b).status, 200);

        const QJsonArray tasks = f.get(QStringLiteral("/api/exec/tasks/") + f.agentId)
                                     .object()
                                     .value(xk::Tasks)
                                     .toArray();
        QCOMPARE(tasks.size(), 8);
        for (const QJsonValue &t : tasks)
            QCOMPARE(
                f.del(QStringLiteral("/api/exec/tasks/") + str(t.toObject(), xk::TaskId)).status,
                204);
        for (auto &p : running)
            QCOMPARE(p->wait().object().value(xk::Killed), QJsonValue(true));
        QCOMPARE(f.exec(QStringLiteral("true")).status, 200);
    }

    void outputIsBatched() {
        // 100,000 lines (588,895 bytes): far fewer events than reads, none above two batches,
        // nothing lost, nothing reordered.
        const HttpResponse r = f.exec(QStringLiteral("seq 1 100000"));
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        const QList<QJsonObject> outputs = f.events(id, xm::ExecTaskOutput);
        QString expected;
        for (int i = 1; i <= 100000; ++i)
            expected += QString::number(i) + u'\n';
        QCOMPARE(f.streamed(id).size(), expected.size());
        QVERIFY(f.streamed(id) == expected);
        QVERIFY2(outputs.size() <= 100, qPrintable(QString::number(outputs.size())));
        for (const QJsonObject &e : outputs) {
            QVERIFY(str(e, xk::Output).toUtf8().size() <= 64 * 1024);
            QVERIFY(!e.contains(xk::SkippedBytes));
        }
        QCOMPARE(f.events(id, xm::ExecTaskCompleted).first().value(xk::SkippedBytes),
                 QJsonValue(0));

        // A slow trickle: one event per 50 ms window at most (plus the last), not one per line.
        const HttpResponse slow =
            f.exec(QStringLiteral("for i in $(seq 1 40); do echo $i; sleep 0.01; done"));
        const QString slowId = str(slow.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(slowId));
        const qint64 windows = slow.object().value(xk::Duration).toInteger() / 50 + 2;
        const qsizetype events = f.events(slowId, xm::ExecTaskOutput).size();
        QVERIFY2(events <= windows && events < 40,
                 qPrintable(QStringLiteral("%1 events in %2 windows").arg(events).arg(windows)));
    }

    void stalledClientSlowsButNeverBlocks() {
        // A WebSocket client that stops reading: its socket backlog grows, the hub drops its
        // events, and exec output is paced and, past its bounds, skipped (and said so), yet the
        // command is never slowed and the answer comes within about a second of its end.
        QTcpSocket stalled;
        stalled.setReadBufferSize(16 * 1024); // Qt stops reading; the kernel buffers fill up
        QVERIFY(connectRaw(stalled, f.svc->port()));
        stalled.write("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      "Sec-WebSocket-Version: 13\r\n\r\n");
        QTRY_COMPARE(f.svc->app().hub().clientCount(), 2);

        const qint64 total = 40'000'000;
        const HttpResponse r =
            f.exec(QStringLiteral("head -c %1 /dev/zero | tr '\\0' x").arg(total), {}, 60000);
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(xk::ExitCode), QJsonValue(0));
        QCOMPARE(str(r.object(), xk::Output).size(), 1024 * 1024);
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        const qint64 skipped =
            f.events(id, xm::ExecTaskCompleted).first().value(xk::SkippedBytes).toInteger();
        QVERIFY(skipped > 0);
        qint64 announced = 0;
        for (const QJsonObject &e : f.events(id, xm::ExecTaskOutput))
            announced += e.value(xk::SkippedBytes).toInteger();
        QVERIFY(announced <= skipped); // the rest was dropped after the last chunk
        QCOMPARE(f.streamed(id).size() + skipped, total);
    }

    void utf8SplitAcrossReadsStaysWhole() {
        const HttpResponse r =
            f.exec(QStringLiteral("printf '\\303'; sleep 0.2; printf '\\251\\n'"));
        const QString id = str(r.object(), xk::TaskId);
        QCOMPARE(str(r.object(), xk::Output), QStringLiteral("\u00e9\n"));
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.streamed(id), QStringLiteral("\u00e9\n"));
    }

    void keepsTheLastMebibyte() {
        const HttpResponse r =
            f.exec(QStringLiteral("head -c 1500000 /dev/zero | tr '\\0' x; echo END"));
        QCOMPARE(r.status, 200);
        const QString out = str(r.object(), xk::Output);
        QCOMPARE(out.size(), 1024 * 1024);
        QVERIFY(out.endsWith(QStringLiteral("xxxEND\n")));
        QCOMPARE(r.object().value(xk::Truncated), QJsonValue(true));
        const QString id = str(r.object(), xk::TaskId);
        QVERIFY(f.waitCompleted(id));
        QCOMPARE(f.streamed(id).size(), 1500000 + 4); // events carry everything
        QCOMPARE(f.events(id, xm::ExecTaskCompleted).first().value(xk::Truncated),
                 QJsonValue(true));
    }

    void refusals_data() {
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        // "@agent" is replaced by the fixture's agent id.
        QTest::newRow("not json") << QByteArray("{agentId:") << 400 << "bad_json";
        QTest::newRow("empty body") << QByteArray() << 400 << "bad_json";
        QTest::newRow("array") << QByteArray("[]") << 400 << "bad_json";
        QTest::newRow("no agentId")
            << QByteArray("{\"command\":\"true\"}") << 400 << "missing_field";
        QTest::newRow("no command")
            << QByteArray("{\"agentId\":\"@agent\"}") << 400 << "missing_field";
        QTest::newRow("agentId number")
            << QByteArray("{\"agentId\":5,\"command\":\"true\"}") << 400 << "wrong_type";
        QTest::newRow("command array")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":[\"true\"]}") << 400 << "wrong_type";
        QTest::newRow("cwd number")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"cwd\":1}") << 400
            << "wrong_type";
        QTest::newRow("timeoutMs string")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"timeoutMs\":\"5\"}")
            << 400 << "wrong_type";
        QTest::newRow("unknown agent")
            << QByteArray("{\"agentId\":\"ghost\",\"command\":\"true\"}") << 404 << "not_found";
        QTest::newRow("blank command")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"  \"}") << 422 << "invalid_value";
        QTest::newRow("NUL in command")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"echo \\u0000x\"}") << 422
            << "invalid_value";
        QTest::newRow("command too long") << QByteArray("{\"agentId\":\"@agent\",\"command\":\"#" +
                                                        QByteArray(65536, 'x') + "\"}")
                                          << 422 << "invalid_value";
        QTest::newRow("cwd missing")
            << QByteArray(
                   "{\"agentId\":\"@agent\",\"command\":\"true\",\"cwd\":\"/nonexistent/d\"}")
            << 422 << "invalid_value";
        QTest::newRow("cwd relative")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"cwd\":\"tmp\"}") << 422
            << "invalid_value";
        QTest::newRow("cwd a file")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"cwd\":\"/etc/hostname\"}")
            << 422 << "invalid_value";
        QTest::newRow("cwd empty")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"cwd\":\"\"}") << 422
            << "invalid_value";
        for (const char *t : {"0", "-1", "86400001", "1.5"})
            QTest::newRow(qPrintable(QStringLiteral("timeoutMs %1").arg(QLatin1String(t))))
                << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"timeoutMs\":" +
                              QByteArray(t) + "}")
                << 422 << "invalid_value";
        QTest::newRow("unknown field")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"true\",\"shell\":\"sh\"}") << 422
            << "unknown_field";
        QTest::newRow("unknown secret")
            << QByteArray("{\"agentId\":\"@agent\",\"command\":\"touch ran; echo {{NOPE}}\"}")
            << 422 << "unknown_secret";
    }

    void refusals() {
        QFETCH(QByteArray, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        body.replace("@agent", f.agentId.toUtf8());
        const HttpResponse r = f.http->send("POST", f.url(QStringLiteral("/api/exec")), body);
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), QLatin1String("code")), code);
        QVERIFY(!str(r.object(), QLatin1String("error")).isEmpty());
        // Nothing ran: the next command is the first task anyone saw.
        const HttpResponse ok = f.exec(QStringLiteral("ls"));
        QCOMPARE(ok.status, 200);
        QCOMPARE(str(ok.object(), xk::Output), QString());
        QCOMPARE(f.startedTask(), str(ok.object(), xk::TaskId));
        QCOMPARE(f.ws->countOf(xm::ExecTaskStarted), 1);
    }

    void taskRoutesRefuseUnknownIds() {
        QCOMPARE(f.get(QStringLiteral("/api/exec/tasks/ghost")).status, 404);
        QCOMPARE(
            str(f.get(QStringLiteral("/api/exec/tasks/ghost")).object(), QLatin1String("code")),
            QStringLiteral("not_found"));
        QCOMPARE(f.del(QStringLiteral("/api/exec/tasks/ghost")).status, 404);
        QCOMPARE(f.get(QStringLiteral("/api/exec/tasks/") + f.agentId).object(),
                 QJsonObject({{xk::Tasks, QJsonArray()}}));
    }
};

QTEST_GUILESS_MAIN(TestExec)
#include "tst_exec.moc"
