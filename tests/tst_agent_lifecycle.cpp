// Agent process lifecycle end to end: stop, clear-context, model change, service restart and
// resume, the global system prompt reaching a running agent, crashes, and no orphan processes.
// Each runs for both providers (the `claude` CLI, and `codex app-server`); compaction is Claude's
// alone.

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

} // namespace

class TestAgentLifecycle final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void stopMidTurn_data() {
        QTest::addColumn<QString>("provider");
        QTest::addColumn<bool>("viaWebSocket");
        for (const QString &p : agentProviders()) {
            QTest::addRow("%s bulk/stop", qPrintable(p)) << p << false;
            QTest::addRow("%s ws stop_agent", qPrintable(p)) << p << true;
        }
    }

    void stopMidTurn() {
        QFETCH(QString, provider);
        QFETCH(bool, viaWebSocket);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueHang();
        QCOMPARE(rig.send(QStringLiteral("think forever")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rig.model().requestCount(), 1, 30000);
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
        // Claude's process ends. Codex's stop is a turn/interrupt and the app-server process
        // stays warm (tst_codex_agents' stopKeepsTheWarmProcess asserts that).
        if (!rig.isCodex()) {
            QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 10000);
            QTRY_COMPARE(rig.agent().value(QStringLiteral("isProcessRunning")).toBool(), false);
        }

        // The next message continues the same session (Claude: resumed in a new process).
        const QString session = str(rig.agent(), "sessionId");
        rig.model().clearQueue();
        rig.model().queueText(QStringLiteral("back again"));
        QCOMPARE(rig.send(QStringLiteral("are you there")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.waitStatus(QStringLiteral("idle")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
        QVERIFY(rig.streamedText().endsWith(QStringLiteral("back again")));
        QVERIFY(rig.model().lastUserTextOf(1).endsWith(QStringLiteral("are you there")));
    }

    void clearContextStartsAFreshSession_data() { addProviderRows(); }
    void clearContextStartsAFreshSession() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("noted"));
        QCOMPARE(rig.send(QStringLiteral("remember the word PELICAN")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString first = str(rig.agent(), "sessionId");
        QVERIFY(!first.isEmpty());

        const HttpResponse r = rig.post(QStringLiteral("/api/agents/bulk/clear-context"),
                                        {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}});
        QCOMPARE(r.status, 200);
        QVERIFY(rig.agent().value(QStringLiteral("sessionId")).isNull());
        QCOMPARE(rig.agent().value(QStringLiteral("contextUsed")).toInteger(), 0);

        rig.model().queueText(QStringLiteral("fresh start"));
        QCOMPARE(rig.send(QStringLiteral("what was the word?")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("what was the word?")));
        QVERIFY(!rig.model().conversationOf(1).contains(QStringLiteral("PELICAN")));
        QTRY_VERIFY(!str(rig.agent(), "sessionId").isEmpty());
        const QString second = str(rig.agent(), "sessionId");
        QVERIFY(!second.isEmpty());
        QVERIFY(second != first);
    }

    void modelChangeAppliesOnNextTurnAndResumes_data() { addProviderRows(); }
    void modelChangeAppliesOnNextTurnAndResumes() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("one"));
        QCOMPARE(rig.send(QStringLiteral("remember the word HERON")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        const QString firstModel = rig.model().modelOf(0);
        const QString newModel = rig.model().otherModel();

        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/change-model"),
                          {{QStringLiteral("agentIds"), QJsonArray{rig.agentId}},
                           {QStringLiteral("provider"), provider},
                           {QStringLiteral("model"), newModel}})
                     .status,
                 200);
        QCOMPARE(str(rig.agent(), "model"), newModel);
        rig.model().queueText(QStringLiteral("two"));
        QCOMPARE(rig.send(QStringLiteral("and now?")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QCOMPARE(rig.model().modelOf(1), newModel);
        QVERIFY(firstModel != newModel);
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("HERON"))); // same one
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

    void serviceRestartResumesTheConversation_data() { addProviderRows(); }
    void serviceRestartResumesTheConversation() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("ok"));
        QCOMPARE(rig.send(QStringLiteral("remember the word OSPREY")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));

        QVERIFY(rig.restartService());
        // The old service took its agent process group with it (a Codex group's last member,
        // orphaned by the kill, is reaped by init a moment later).
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 10000);
        QCOMPARE(str(rig.agent(), "sessionId"), session);
        QCOMPARE(rig.agent().value(QStringLiteral("isProcessRunning")).toBool(), false);

        rig.model().queueText(QStringLiteral("OSPREY"));
        QCOMPARE(rig.send(QStringLiteral("which word?")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(rig.model().requestCount(), 2);
        QVERIFY(rig.model().conversationOf(1).contains(QStringLiteral("OSPREY")));
        QCOMPARE(str(rig.agent(), "sessionId"), session);
    }

    // The CLI can be killed before it writes its session file (or the file is removed): the next
    // message must not fail on "No conversation found"; it starts a new session and says so.
    // Claude's file is <home>/.claude/projects/<cwd>/<session>.jsonl, Codex's rollout
    // <home>/.codex/sessions/<date>/rollout-<time>-<thread>.jsonl.
    void missingSessionFileStartsAFreshSession_data() { addProviderRows(); }
    void missingSessionFileStartsAFreshSession() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("ok"));
        QCOMPARE(rig.send(QStringLiteral("remember the word EGRET")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        QVERIFY(!session.isEmpty());

        rig.svc->stop(); // the agent's process ends with the service
        int removed = 0;
        QDirIterator files(rig.home, {QLatin1Char('*') + session + QStringLiteral(".jsonl")},
                           QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
        while (files.hasNext())
            removed += QFile::remove(files.next()) ? 1 : 0;
        QCOMPARE(removed, 1);
        QVERIFY(rig.restartService());

        rig.model().queueText(QStringLiteral("hello again"));
        QCOMPARE(rig.send(QStringLiteral("which word?")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QCOMPARE(str(rig.agent(), "status"), QStringLiteral("idle"));
        QCOMPARE(rig.model().requestCount(), 2);
        QVERIFY(!rig.model().conversationOf(1).contains(QStringLiteral("EGRET")));
        QVERIFY(rig.streamedText().contains(QStringLiteral("was not found on disk")));
        QVERIFY(rig.streamedText().contains(QStringLiteral("hello again")));
        const QString fresh = str(rig.agent(), "sessionId");
        QVERIFY(!fresh.isEmpty());
        QVERIFY(fresh != session);
    }

    // Claude gets it appended to its system prompt, Codex as the thread's developer instructions.
    void systemPromptReachesARunningAgent_data() { addProviderRows(); }
    void systemPromptReachesARunningAgent() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueText(QStringLiteral("first"));
        QCOMPARE(rig.send(QStringLiteral("hello")).status, 200);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(!rig.model().systemPromptOf(0).contains(QStringLiteral("FLOTILLA-MARK-7")));
        QVERIFY(rig.svc->app().runtime().isProcessRunning(rig.agentId));
        const qint64 pidBefore = rig.svc->app().runtime().processId(rig.agentId);

        QCOMPARE(rig.post(QStringLiteral("/api/agents/system-settings/prompt"),
                          {{QStringLiteral("prompt"),
                            QStringLiteral("FLOTILLA-MARK-7: answer briefly")}})
                     .status,
                 200);
        rig.model().queueText(QStringLiteral("second"));
        QCOMPARE(rig.send(QStringLiteral("again")).status, 200);
        QVERIFY(rig.waitTurns(2));
        QVERIFY2(rig.model().systemPromptOf(1).contains(QStringLiteral("FLOTILLA-MARK-7")),
                 qPrintable(rig.model().systemPromptOf(1).right(1500)));
        QVERIFY(rig.model().conversationOf(1).contains(
            QStringLiteral("hello"))); // resumed, not restarted
        // Claude's prompt is a command-line argument: a new process resumed the session. Codex
        // took it in the running thread (a developer message, since a thread keeps the
        // instructions it started with): same process, no start-up.
        QCOMPARE(rig.svc->app().runtime().processId(rig.agentId) == pidBefore,
                 provider == QLatin1String("codex"));
    }

    // `/compact` makes the real CLI summarise the conversation: clients see it start and end.
    // Claude only: `/compact` is a Claude Code command; a Codex agent sends it to the model as
    // text (Codex compacts through thread/compact, which the service does not drive).
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

    // The CLI's whole process group is killed mid-turn (as the OOM killer or a user would).
    void crashIsReportedRestartedAndRateLimited_data() { addProviderRows(); }
    void crashIsReportedRestartedAndRateLimited() {
        QFETCH(QString, provider);
        AgentRig rig(provider, [](ServerConfig &c) { c.maxRestartsPerMinute = 1; });
        QVERIFY(rig.start());
        // A finished turn first: a CLI killed during its first turn may not have written its
        // session yet, and the restart then starts a new one (see missingSessionFileStarts...).
        rig.model().queueText(QStringLiteral("noted"));
        QCOMPARE(rig.send(QStringLiteral("remember the word KESTREL")).status, 200);
        QVERIFY(rig.waitTurns(1));
        const QString session = str(rig.agent(), "sessionId");
        QVERIFY(!session.isEmpty());
        for (int round = 1; round <= 2; ++round) {
            rig.model().queueHang();
            QCOMPARE(rig.send(QStringLiteral("round %1").arg(round)).status, 200);
            QTRY_COMPARE_WITH_TIMEOUT(rig.model().requestCount(), 1 + round, 30000);
            // Round 2 runs in a restarted process, resuming: the conversation goes on.
            QCOMPARE(str(rig.agent(), "sessionId"), session);
            QVERIFY(
                rig.model().lastUserTextOf(round).endsWith(QStringLiteral("round %1").arg(round)));
            QVERIFY(rig.model().conversationOf(round).contains(QStringLiteral("KESTREL")));
            const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
            QVERIFY(groupAlive(pgid));
            ::kill(pid_t(-pgid), SIGKILL);
            QVERIFY(rig.waitTurns(1 + round, 10000));
            QVERIFY(rig.waitStatus(QStringLiteral("error")));
            const QString lastError = str(rig.agent(), "lastError");
            QVERIFY2(lastError.startsWith(rig.model().cliName() + QLatin1Char(' ')) &&
                         lastError.contains(QStringLiteral("killed by signal 9")),
                     qPrintable(lastError));
            QVERIFY(str(rig.chunks().constLast(), "text").startsWith(QStringLiteral("Error: ")));
        }
        // Round 2 was the one automatic restart this minute allows; a third process is refused.
        QCOMPARE(rig.send(QStringLiteral("round 3")).status, 200);
        QVERIFY(rig.waitTurns(4, 10000));
        QVERIFY2(str(rig.agent(), "lastError").contains(QStringLiteral("crashed")),
                 qPrintable(str(rig.agent(), "lastError")));
        QCOMPARE(rig.model().requestCount(), 3);
    }

    void deleteEndsTheProcessGroup_data() { addProviderRows(); }
    void deleteEndsTheProcessGroup() {
        QFETCH(QString, provider);
        AgentRig rig(provider);
        QVERIFY(rig.start());
        rig.model().queueHang();
        QCOMPARE(rig.send(QStringLiteral("busy")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(rig.model().requestCount(), 1, 30000);
        const qint64 pgid = rig.svc->app().runtime().processId(rig.agentId);
        QVERIFY(groupAlive(pgid));
        QCOMPARE(rig.http.del(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId)).status,
                 204);
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 10000);
    }
};

QTEST_GUILESS_MAIN(TestAgentLifecycle)
#include "tst_agent_lifecycle.moc"
