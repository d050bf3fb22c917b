// Idle agents release their process: after its idle timeout an agent's CLI process is
// ended, the agent keeps its session and status, and the next message resumes the conversation in
// a new process; never while a turn, a permission request or a queued message is pending. The
// timeout's settings: --idle-timeout, the agent's own idleTimeoutSeconds (create, PATCH, null, 0)
// and their refusals. Both providers run the real CLI against their mock.

#include "agents/AgentRuntime.h"
#include "app/ServerConfig.h"
#include "support/AgentRig.h"

#include <QTest>

#include <cerrno>
#include <csignal>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

bool running(AgentRig &rig, const QString &id = {}) {
    return rig.agent(id).value(QLatin1String("isProcessRunning")).toBool();
}

bool groupAlive(qint64 pgid) {
    return pgid > 0 && (::kill(pid_t(-pgid), 0) == 0 || errno != ESRCH);
}

// A rig whose agents are released after `seconds`.
std::function<void(ServerConfig &)> idleAfter(int seconds) {
    return [seconds](ServerConfig &c) { c.idleTimeoutSeconds = seconds; };
}

QJsonObject payloadOf(const QJsonObject &message) {
    return message.value(QLatin1String("payload")).toObject();
}
} // namespace

class TestAgentIdle final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // A released agent looks the same (idle, same session) and its next message resumes the
    // conversation in a new process, with no visible difference but the start-up.
    void idleAgentIsReleasedAndResumes_data() { addProviderRows(); }
    void idleAgentIsReleasedAndResumes() {
        QFETCH(QString, provider);
        AgentRig rig(provider, idleAfter(1));
        QVERIFY(rig.start());
        QCOMPARE(rig.agent().value(QStringLiteral("idleTimeoutSeconds")), QJsonValue());
        rig.model().queueText(QStringLiteral("noted"));
        QCOMPARE(rig.send(QStringLiteral("remember the word OSPREY")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));
        const QString session = str(rig.agent(), "sessionId");
        QVERIFY(!session.isEmpty());

        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 5000);
        const QJsonObject released = rig.agent();
        QCOMPARE(str(released, "status"), QStringLiteral("idle"));
        QCOMPARE(str(released, "sessionId"), session);
        QVERIFY(released.value(QStringLiteral("lastError")).isNull());
        // The release is one agent_updated: the process, nothing else the user sees.
        QTRY_COMPARE(rig.updates().constLast().value(QStringLiteral("isProcessRunning")),
                     QJsonValue(false));
        QVERIFY(!rig.updates().constLast().contains(QStringLiteral("status")));

        rig.model().queueText(QStringLiteral("it was OSPREY"));
        QCOMPARE(rig.send(QStringLiteral("what was the word?")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QVERIFY(rig.streamedText().endsWith(QStringLiteral("it was OSPREY")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("OSPREY"))); // resumed
        QVERIFY(rig.svc->app().runtime().processId(rig.agentId) != pgid);
        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 10000); // and released again
    }

    // A turn that outlasts the timeout, and a message queued behind it, keep the process.
    void neverDuringATurnOrWithAQueuedMessage_data() { addProviderRows(); }
    void neverDuringATurnOrWithAQueuedMessage() {
        QFETCH(QString, provider);
        AgentRig rig(provider, idleAfter(1));
        QVERIFY(rig.start());
        rig.model().queueHang();
        QCOMPARE(rig.send(QStringLiteral("think for a long time")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rig.model().requestCount(), 1, 30000);
        QCOMPARE(rig.send(QStringLiteral("and then this")).status, 200); // queued
        // Three timeouts long: still working, still running.
        QVERIFY(!QTest::qWaitFor([&] { return !running(rig); }, 3000));
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("working"));
        // A stop drops the queue; the stopped agent is released in its turn. (Codex keeps its
        // process through a stop: its interrupted turn ends, then it idles.)
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 15000);
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("stopped"));
    }

    // A permission request waits for its answer however long that takes; the answered turn ends
    // and only then does the idle time count.
    void neverWithAPendingPermissionRequest_data() { addProviderRows(); }
    void neverWithAPendingPermissionRequest() {
        QFETCH(QString, provider);
        AgentRig rig(provider, idleAfter(1));
        QVERIFY(rig.start());
        rig.model().queueCommand(QStringLiteral("touch asked.txt"));
        rig.model().queueText(QStringLiteral("done"));
        QCOMPARE(rig.send(QStringLiteral("make the file")).status, 200);
        QVERIFY(rig.ws->waitFor(QStringLiteral("permission_request"), 1, 60000));
        QVERIFY(rig.waitStatus(QStringLiteral("waiting_permission")));
        QVERIFY(!QTest::qWaitFor([&] { return !running(rig); }, 3000));
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("waiting_permission"));

        const QString id = str(payloadOf(rig.ws->last(QStringLiteral("permission_request"))), "id");
        rig.ws->sendJson(QJsonObject{
            {QStringLiteral("type"), QStringLiteral("permission_response")},
            {QStringLiteral("payload"), QJsonObject{{QStringLiteral("agentId"), rig.agentId},
                                                    {QStringLiteral("permissionId"), id},
                                                    {QStringLiteral("granted"), true}}}});
        QVERIFY(rig.waitTurns(1));
        QVERIFY(QFile::exists(rig.cwd + QStringLiteral("/asked.txt")));
        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 10000);
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
    }

    // Released, then the service restarts: the next message resumes the same conversation.
    void releasedAgentResumesAfterARestart_data() { addProviderRows(); }
    void releasedAgentResumesAfterARestart() {
        QFETCH(QString, provider);
        AgentRig rig(provider, idleAfter(1));
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("noted"));
        QCOMPARE(rig.send(QStringLiteral("remember the word HERON")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 10000);

        QVERIFY(rig.restartService());
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
        rig.model().queueText(QStringLiteral("HERON it was"));
        QCOMPARE(rig.send(QStringLiteral("which word?")).status, 200);
        QVERIFY(rig.waitTurns(1)); // the WebSocket is new: its first final chunk
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("HERON")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
    }

    // The agent's own timeout wins over the service's: 0 never releases, a PATCH takes effect
    // from its moment, null returns to the service's value.
    void perAgentTimeout() {
        AgentRig rig(idleAfter(1));
        QVERIFY(rig.start());
        HttpResponse r =
            rig.createAgent(QStringLiteral("keeper"), {{QStringLiteral("idleTimeoutSeconds"), 0}});
        QCOMPARE(r.status, 201);
        const QString keeper = str(r.object(), "id");
        QCOMPARE(r.object().value(QStringLiteral("idleTimeoutSeconds")).toInt(-1), 0);
        // The rig's agent gets a long timeout of its own.
        r = rig.http.patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                           QJsonObject{{QStringLiteral("idleTimeoutSeconds"), 3600}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("idleTimeoutSeconds")).toInt(), 3600);

        rig.model().queueText(QStringLiteral("one"));
        rig.model().queueText(QStringLiteral("two"));
        QCOMPARE(rig.send(QStringLiteral("hi"), keeper).status, 200);
        QCOMPARE(rig.send(QStringLiteral("hi")).status, 200);
        QVERIFY(rig.waitTurns(1, 30000, keeper));
        QVERIFY(rig.waitTurns(1));
        QVERIFY(!QTest::qWaitFor([&] { return !running(rig, keeper) || !running(rig); }, 2500));

        // null: the service's 1 s, counted from the change.
        r = rig.http.patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                           QJsonObject{{QStringLiteral("idleTimeoutSeconds"), QJsonValue()}});
        QCOMPARE(r.status, 200);
        QVERIFY(r.object().value(QStringLiteral("idleTimeoutSeconds")).isNull());
        QTRY_VERIFY_WITH_TIMEOUT(!running(rig), 10000);
        QVERIFY(running(rig, keeper));
        // And persisted with the agent.
        QVERIFY(rig.restartService());
        QCOMPARE(rig.agent(keeper).value(QStringLiteral("idleTimeoutSeconds")).toInt(-1), 0);
        QVERIFY(rig.agent().value(QStringLiteral("idleTimeoutSeconds")).isNull());
    }

    void timeoutRefusals_data() {
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("string") << QJsonValue(QStringLiteral("10")) << 400
                                << QStringLiteral("wrong_type");
        QTest::newRow("bool") << QJsonValue(true) << 400 << QStringLiteral("wrong_type");
        QTest::newRow("negative") << QJsonValue(-1) << 422 << QStringLiteral("invalid_value");
        QTest::newRow("fraction") << QJsonValue(1.5) << 422 << QStringLiteral("invalid_value");
        QTest::newRow("over a week")
            << QJsonValue(604801) << 422 << QStringLiteral("invalid_value");
    }
    void timeoutRefusals() {
        QFETCH(QJsonValue, value);
        QFETCH(int, status);
        QFETCH(QString, code);
        TestService svc;
        QVERIFY(svc.start());
        HttpClient http;
        HttpResponse r = http.post(svc.url(QStringLiteral("/api/agents")),
                                   QJsonObject{{QStringLiteral("name"), QStringLiteral("a")},
                                               {QStringLiteral("cwd"), svc.workDir()},
                                               {QStringLiteral("idleTimeoutSeconds"), value}});
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        r = http.post(svc.url(QStringLiteral("/api/agents")),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("b")},
                                  {QStringLiteral("cwd"), svc.workDir()}});
        QCOMPARE(r.status, 201);
        const QString id = str(r.object(), "id");
        r = http.patch(svc.url(QStringLiteral("/api/agents/") + id),
                       QJsonObject{{QStringLiteral("idleTimeoutSeconds"), value}});
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
    }

    void commandLineFlag_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("exitCode"); // -1: runs
        QTest::addColumn<int>("seconds");
        QTest::newRow("default") << QStringList() << -1 << 600;
        QTest::newRow("5") << QStringList{QStringLiteral("--idle-timeout"), QStringLiteral("5")}
                           << -1 << 5;
        QTest::newRow("0 never") << QStringList{QStringLiteral("--idle-timeout=0")} << -1 << 0;
        QTest::newRow("negative") << QStringList{QStringLiteral("--idle-timeout=-1")} << 2 << 0;
        QTest::newRow("not a number")
            << QStringList{QStringLiteral("--idle-timeout"), QStringLiteral("ten")} << 2 << 0;
        QTest::newRow("over a week")
            << QStringList{QStringLiteral("--idle-timeout=604801")} << 2 << 0;
    }
    void commandLineFlag() {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        QFETCH(int, seconds);
        const ParsedCommandLine parsed = parseCommandLine(
            QStringList{QStringLiteral("flotillad"), QStringLiteral("--data-dir=/tmp/x")} + args,
            QProcessEnvironment());
        QCOMPARE(parsed.exitCode, exitCode);
        if (exitCode < 0)
            QCOMPARE(parsed.config.idleTimeoutSeconds, seconds);
        else
            QVERIFY2(parsed.message.contains(QLatin1String("--idle-timeout")),
                     qPrintable(parsed.message));
    }
};

QTEST_GUILESS_MAIN(TestAgentIdle)
#include "tst_agent_idle.moc"
