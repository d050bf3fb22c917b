// Agent process lifecycle end to end: stop, clear-context, model change, service restart and
// resume, the global system prompt reaching a running agent, crashes, and no orphan processes.

#include "agents/AgentRuntime.h"
#include "support/AgentRig.h"

#include <QDirIterator>
#include <QTest>

#include <cerrno>
#include <csignal>

using namespace flotilla;
using namespace flotilla::test;

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// True while any process of group `pgid` exists.
bool groupAlive(qint64 pgid) {
    return pgid > 0 && (::kill(pid_t(-pgid), 0) == 0 || errno != ESRCH);
}

QString messagesOf(const MockAnthropic &mock, int i) {
    return QString::fromUtf8(
        QJsonDocument(mock.request(i).value(QStringLiteral("messages")).toArray()).toJson());
}
} // namespace

class TestAgentLifecycle final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stopMidTurn_data() {
        QTest::addColumn<bool>("viaWebSocket");
        QTest::newRow("bulk/stop") << false;
        QTest::newRow("ws stop_agent") << true;
    }

    void stopMidTurn() {
        QFETCH(bool, viaWebSocket);
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueHang();
        QCOMPARE(rig.send(QStringLiteral("think forever")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rig.mock.requestCount(), 1, 30000);
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));
        if (viaWebSocket) {
            rig.ws->sendJson(QJsonObject{{QStringLiteral("type"), QStringLiteral("stop_agent")},
                                         {QStringLiteral("payload"),
                                          QJsonObject{{QStringLiteral("agentId"), rig.agentId}}}});
        } else {
            const HttpResponse r = rig.post(
                QStringLiteral("/api/agents/bulk/stop"),
                {{QStringLiteral("agentIds"), QJsonArray{rig.agentId, QStringLiteral("ghost")}}});
            QCOMPARE(r.status, 200);
            QCOMPARE(r.object().value(QStringLiteral("succeeded")).toArray(),
                     QJsonArray{rig.agentId});
            QCOMPARE(str(r.object().value(QStringLiteral("failed")).toArray()[0].toObject(), "id"),
                     QStringLiteral("ghost"));
        }
        QVERIFY(rig.waitTurns(1, 10000));
        QCOMPARE(str(rig.chunks().constLast(), "text"), QStringLiteral("[stopped]"));
        QVERIFY(rig.waitStatus(QStringLiteral("stopped")));
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 10000);
        QTRY_COMPARE(rig.agent().value(QStringLiteral("isProcessRunning")).toBool(), false);

        // The next message resumes the same session in a new process.
        const QString session = str(rig.agent(), "sessionId");
        rig.mock.clearQueue();
        rig.mock.queueText(QStringLiteral("back again"));
        QCOMPARE(rig.send(QStringLiteral("are you there")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
    }

    void clearContextStartsAFreshSession() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("noted"));
        QCOMPARE(rig.send(QStringLiteral("remember the word PELICAN")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString first = str(rig.agent(), "sessionId");
        QVERIFY(!first.isEmpty());

        const HttpResponse r = rig.post(QStringLiteral("/api/agents/bulk/clear-context"),
                                        {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}});
        QCOMPARE(r.status, 200);
        QVERIFY(rig.agent().value(QStringLiteral("sessionId")).isNull());
        QCOMPARE(rig.agent().value(QStringLiteral("contextUsed")).toInteger(), 0);

        rig.mock.queueText(QStringLiteral("fresh start"));
        QCOMPARE(rig.send(QStringLiteral("what was the word?")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(!messagesOf(rig.mock, 1).contains(QStringLiteral("PELICAN")));
        const QString second = str(rig.agent(), "sessionId");
        QVERIFY(!second.isEmpty());
        QVERIFY(second != first);
    }

    void modelChangeAppliesOnNextTurnAndResumes() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("one"));
        QCOMPARE(rig.send(QStringLiteral("remember the word HERON")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        const QString firstModel = str(rig.mock.request(0), "model");

        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/change-model"),
                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}},
                           {QStringLiteral("provider"), QStringLiteral("claude")},
                           {QStringLiteral("model"), QStringLiteral("claude-haiku-4-5")}})
                     .status,
                 200);
        QCOMPARE(str(rig.agent(), "model"), QStringLiteral("claude-haiku-4-5"));
        rig.mock.queueText(QStringLiteral("two"));
        QCOMPARE(rig.send(QStringLiteral("and now?")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QCOMPARE(str(rig.mock.request(1), "model"), QStringLiteral("claude-haiku-4-5"));
        QVERIFY(firstModel != QLatin1String("claude-haiku-4-5"));
        QVERIFY(messagesOf(rig.mock, 1).contains(QStringLiteral("HERON"))); // same conversation
        QCOMPARE(str(rig.agent(), "sessionId"), session);

        const HttpResponse bad = rig.post(QStringLiteral("/api/agents/bulk/change-model"),
                                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}},
                                           {QStringLiteral("provider"), QStringLiteral("gpt")},
                                           {QStringLiteral("model"), QStringLiteral("x")}});
        QCOMPARE(bad.status, 422);
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          {{QStringLiteral("agentIds"), QStringLiteral("nope")}})
                     .status,
                 400);
    }

    void serviceRestartResumesTheConversation() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("ok"));
        QCOMPARE(rig.send(QStringLiteral("remember the word OSPREY")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));

        QVERIFY(rig.restartService());
        QVERIFY(!groupAlive(pgid)); // the old service took its agent process with it
        QCOMPARE(str(rig.agent(), "sessionId"), session);
        QCOMPARE(rig.agent().value(QStringLiteral("isProcessRunning")).toBool(), false);

        rig.mock.queueText(QStringLiteral("OSPREY"));
        QCOMPARE(rig.send(QStringLiteral("which word?")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(rig.mock.requestCount(), 2);
        QVERIFY(messagesOf(rig.mock, 1).contains(QStringLiteral("OSPREY")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
    }

    // The CLI can be killed before it writes its session file (or the file is removed): the next
    // message must not fail on "No conversation found"; it starts a new session and says so.
    void missingSessionFileStartsAFreshSession() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("ok"));
        QCOMPARE(rig.send(QStringLiteral("remember the word EGRET")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        QVERIFY(!session.isEmpty());

        rig.svc->stop(); // the agent's process ends with the service
        int removed = 0;
        QDirIterator files(rig.home, {session + QStringLiteral(".jsonl")},
                           QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (files.hasNext())
            removed += QFile::remove(files.next()) ? 1 : 0;
        QCOMPARE(removed, 1);
        QVERIFY(rig.restartService());

        rig.mock.queueText(QStringLiteral("hello again"));
        QCOMPARE(rig.send(QStringLiteral("which word?")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
        QCOMPARE(rig.mock.requestCount(), 2);
        QVERIFY(!messagesOf(rig.mock, 1).contains(QStringLiteral("EGRET")));
        QVERIFY(rig.streamedText().contains(QStringLiteral("was not found on disk")));
        QVERIFY(rig.streamedText().contains(QStringLiteral("hello again")));
        const QString fresh = str(rig.agent(), "sessionId");
        QVERIFY(!fresh.isEmpty());
        QVERIFY(fresh != session);
    }

    void systemPromptReachesARunningAgent() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("first"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(!rig.mock.systemPromptOf(0).contains(QStringLiteral("FLOTILLA-MARK-7")));
        QVERIFY(rig.svc->app().runtime().isProcessRunning(rig.agentId));

        QCOMPARE(rig.post(QStringLiteral("/api/agents/system-settings/prompt"),
                          {{QStringLiteral("prompt"),
                            QStringLiteral("FLOTILLA-MARK-7: answer briefly")}})
                     .status,
                 200);
        rig.mock.queueText(QStringLiteral("second"));
        QCOMPARE(rig.send(QStringLiteral("again")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.mock.systemPromptOf(1).contains(QStringLiteral("FLOTILLA-MARK-7")));
        QVERIFY(
            messagesOf(rig.mock, 1).contains(QStringLiteral("hello"))); // resumed, not restarted
    }

    // `/compact` makes the real CLI summarise the conversation: clients see it start and end.
    void compactionIsBroadcast() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("first answer"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));
        rig.mock.queueText(QStringLiteral("Summary: the user said hello."));
        QCOMPARE(rig.send(QStringLiteral("/compact")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.ws->waitFor(QStringLiteral("compacting_status"), 2));
        const QList<QJsonObject> events = rig.ws->ofType(QStringLiteral("compacting_status"));
        const QJsonObject on = events[0].value(QStringLiteral("payload")).toObject();
        const QJsonObject off = events[1].value(QStringLiteral("payload")).toObject();
        QCOMPARE(str(on, "agentId"), rig.agentId);
        QCOMPARE(on.value(QStringLiteral("active")).toBool(), true);
        QCOMPARE(off.value(QStringLiteral("active")).toBool(), false);
        QVERIFY(rig.mock.requestCount() >= 2); // the summary request(s) went to the model
    }

    void crashIsReportedRestartedAndRateLimited() {
        AgentRig rig([](ServerConfig &c) { c.maxRestartsPerMinute = 1; });
        QVERIFY(rig.start());
        for (int round = 1; round <= 2; ++round) {
            rig.mock.queueHang();
            QCOMPARE(rig.send(QStringLiteral("round %1").arg(round)).status, 200);
            QTRY_COMPARE_WITH_TIMEOUT(rig.mock.requestCount(), round, 30000);
            const qint64 pid = rig.svc->app().runtime().processId(rig.agentId);
            QVERIFY(pid > 0);
            ::kill(pid_t(pid), SIGKILL);
            QVERIFY(rig.waitTurns(round, 10000));
            QVERIFY(rig.waitStatus(QStringLiteral("error")));
            QVERIFY2(str(rig.agent(), "lastError").contains(QStringLiteral("killed by signal 9")),
                     qPrintable(str(rig.agent(), "lastError")));
        }
        // Round 2 was the one automatic restart this minute allows; a third process is refused.
        QCOMPARE(rig.send(QStringLiteral("round 3")).status, 200);
        QVERIFY(rig.waitTurns(3, 10000));
        QVERIFY2(str(rig.agent(), "lastError").contains(QStringLiteral("crashed")),
                 qPrintable(str(rig.agent(), "lastError")));
        QCOMPARE(rig.mock.requestCount(), 2);
    }

    void deleteEndsTheProcessGroup() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueHang();
        QCOMPARE(rig.send(QStringLiteral("busy")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rig.mock.requestCount(), 1, 30000);
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId)).status,
                 204);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 10000);
    }
};

QTEST_GUILESS_MAIN(TestAgentLifecycle)
#include "tst_agent_lifecycle.moc"
