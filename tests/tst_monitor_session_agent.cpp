// The monitor following a real agent turn: the in-process service drives the pinned Claude
// Code CLI against the scripted model (AgentRig); the session, connected over loopback, turns
// the streamed output into a transcript (the user's message, one entry per tool call with its
// result, the reply), follows status and context, and pages the conversation's history from the
// CLI's session file without repeating what it streamed.

#include "core/MonitorSession.h"
#include "protocol/BossNames.h"
#include "protocol/WireNames.h"
#include "support/AgentRig.h"
#include "support/BossFixtures.h"
#include "support/MonitorFixture.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace flotilla::test;
using namespace flotilla::monitor;
using flotilla::client::ConnectionState;
namespace k = flotilla::wire::key;

namespace {

int rowOfKind(const TranscriptModel &m, TranscriptEntry::Kind kind, int from = 0) {
    for (int row = from; row < m.rowCount(); ++row) {
        if (m.entry(row).kind == kind)
            return row;
    }
    return -1;
}

QString dump(const TranscriptModel &m) {
    QStringList out;
    for (int row = 0; row < m.rowCount(); ++row)
        out << QStringLiteral("%1:%2")
                   .arg(int(m.entry(row).kind))
                   .arg(m.index(row).data().toString());
    return out.join(QLatin1Char('|'));
}

bool open(MonitorSession &s, AgentRig &rig) {
    QSignalSpy resynced(&s, &MonitorSession::resynced);
    s.open({rig.svc->url(QString()), rig.token});
    return QTest::qWaitFor([&] { return !resynced.isEmpty(); }, 10000);
}

} // namespace

class TestMonitorSessionAgent final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void streamedTurnBecomesATranscript() {
        AgentRig rig;
        QVERIFY(rig.start());
        MonitorSession s;
        QVERIFY(open(s, rig));
        QCOMPARE(s.agents().agentIds(), QStringList{rig.agentId});

        rig.mock.setUsage(1000, 20);
        rig.mock.queueToolUse(QStringLiteral("Bash"),
                              {{QStringLiteral("command"), QStringLiteral("echo monitor-tool-ok")},
                               {QStringLiteral("description"), QStringLiteral("probe")}});
        rig.mock.queueText(QStringLiteral("All done.\nSecond line."), 6);
        const auto sent = waitReply(
            [&](auto cb) { s.sendMessage(rig.agentId, QStringLiteral("run the probe"), cb); });
        QCOMPARE(sent.status, 200);
        QVERIFY(rig.waitTurns(1));

        TranscriptModel &out = s.conversation(rig.agentId);
        // The final chunk closes the turn: nothing is left open.
        QTRY_VERIFY(out.rowCount() > 0 && !out.inTurn() &&
                    !out.entry(out.rowCount() - 1).streaming);
        QCOMPARE(out.entry(0).kind, TranscriptEntry::Kind::User);
        QCOMPARE(out.entry(0).text, QStringLiteral("run the probe"));
        QVERIFY(!out.entry(0).pending); // its turn started (currentTask): not a second copy
        QCOMPARE(rowOfKind(out, TranscriptEntry::Kind::User, 1), -1);
        const int call = rowOfKind(out, TranscriptEntry::Kind::Tool);
        QVERIFY2(call > 0, qPrintable(dump(out)));
        const TranscriptEntry &tool = out.entry(call);
        QCOMPARE(tool.toolName, QStringLiteral("Bash"));
        QCOMPARE(tool.toolInput.value(QStringLiteral("command")).toString(),
                 QStringLiteral("echo monitor-tool-ok"));
        QVERIFY(tool.hasResult);
        QCOMPARE(tool.toolOutput.trimmed(), QStringLiteral("monitor-tool-ok"));
        const TranscriptEntry &reply = out.entry(out.rowCount() - 1);
        QCOMPARE(reply.kind, TranscriptEntry::Kind::Assistant);
        QCOMPARE(reply.text, QStringLiteral("All done.\nSecond line."));

        // Status and context through agent_updated / context_update.
        const int row = s.agents().rowOf(rig.agentId);
        QTRY_COMPARE(s.agents().index(row, AgentsModel::Status).data().toString(),
                     QStringLiteral("idle"));
        QTRY_COMPARE(s.agents().index(row, 0).data(AgentsModel::ContextUsedRole).toLongLong(),
                     1000);
        QVERIFY(s.agents().index(row, 0).data(AgentsModel::ContextLimitRole).toLongLong() > 0);

        // Paging back from the live view: the page is this very turn, already on screen.
        const int before = out.rowCount();
        bool more = true;
        bool called = false;
        s.loadOlderHistory(rig.agentId, [&](bool hasMore) {
            called = true;
            more = hasMore;
        });
        QTRY_VERIFY(called);
        QVERIFY(!more);
        QCOMPARE(out.rowCount(), before);

        // A monitor started later reads the same conversation from history.
        MonitorSession later;
        QVERIFY(open(later, rig));
        called = false;
        later.loadOlderHistory(rig.agentId, [&](bool hasMore) {
            called = true;
            more = hasMore;
        });
        QTRY_VERIFY(called);
        QVERIFY(!more);
        const TranscriptModel &history = later.conversation(rig.agentId);
        QVERIFY2(history.rowCount() >= 3, qPrintable(dump(history)));
        // The user's message, as a user message (the CLI may put reminder text before it).
        const int asked = rowOfKind(history, TranscriptEntry::Kind::User);
        QVERIFY2(asked >= 0, qPrintable(dump(history)));
        QVERIFY(history.entry(asked).text.endsWith(QStringLiteral("run the probe")));
        const int used = rowOfKind(history, TranscriptEntry::Kind::Tool);
        QVERIFY2(used > asked, qPrintable(dump(history)));
        QVERIFY(history.entry(used).toolOutput.contains(QStringLiteral("monitor-tool-ok")));
        QCOMPARE(history.entry(history.rowCount() - 1).text,
                 QStringLiteral("All done.\nSecond line."));
    }

    void stopEndsTheTurnInTheView() {
        AgentRig rig;
        QVERIFY(rig.start());
        MonitorSession s;
        QVERIFY(open(s, rig));
        rig.mock.queueSlow(QStringLiteral("a slow answer that will be cut short"), 20000);
        QCOMPARE(rig.send(QStringLiteral("take your time")).status, 200);
        const int row = s.agents().rowOf(rig.agentId);
        QTRY_COMPARE(s.agents().index(row, AgentsModel::Status).data().toString(),
                     QStringLiteral("working"));
        TranscriptModel &out = s.conversation(rig.agentId);
        // A turn started by another client shows its message (currentTask), then the reply.
        QTRY_VERIFY(rowOfKind(out, TranscriptEntry::Kind::Assistant) > 0); // some deltas streamed
        QCOMPARE(out.entry(0).kind, TranscriptEntry::Kind::User);
        QCOMPARE(out.entry(0).text, QStringLiteral("take your time"));
        QVERIFY(waitReply([&](auto cb) { s.stopAgents({rig.agentId}, cb); }).ok());
        QTRY_COMPARE(out.index(out.rowCount() - 1).data().toString(), QStringLiteral("[stopped]"));
        QCOMPARE(out.entry(out.rowCount() - 1).kind, TranscriptEntry::Kind::Stopped);
        QVERIFY(!out.entry(out.rowCount() - 2).streaming); // the cut reply is closed
        QTRY_COMPARE(s.agents().index(row, AgentsModel::Status).data().toString(),
                     QStringLiteral("stopped"));
    }

    // A monitor that connects while a turn runs shows the message that started it
    // (from the agent's currentTask) above the reply streaming in, before any history is paged;
    // the history page that follows does not repeat it.
    void connectingMidTurnShowsTheTurnsMessage() {
        AgentRig rig;
        QVERIFY(rig.start());
        rig.mock.queueText(QStringLiteral("an earlier answer"));
        QCOMPARE(rig.send(QStringLiteral("an earlier question")).status, 200);
        QVERIFY(rig.waitTurns(1));
        rig.mock.queueSlow(QStringLiteral("a slow answer streaming while the monitor connects"),
                           4000);
        QCOMPARE(rig.send(QStringLiteral("explain the build")).status, 200);
        QVERIFY(rig.waitStatus(QStringLiteral("working")));

        MonitorSession late;
        QVERIFY(open(late, rig));
        TranscriptModel &out = late.conversation(rig.agentId);
        QVERIFY(out.rowCount() >= 1); // from the snapshot, before the output that follows
        QCOMPARE(out.entry(0).kind, TranscriptEntry::Kind::User);
        QCOMPARE(out.entry(0).text, QStringLiteral("explain the build"));
        QVERIFY(out.inTurn());
        QTRY_VERIFY_WITH_TIMEOUT(rowOfKind(out, TranscriptEntry::Kind::Assistant) == 1, 10000);
        QVERIFY(rig.waitTurns(2));
        QTRY_VERIFY(!out.inTurn());

        bool called = false;
        late.loadOlderHistory(rig.agentId, [&](bool) { called = true; });
        QTRY_VERIFY(called);
        // The earlier turn came from history; this turn's message is not there twice.
        QStringList users;
        for (int row = 0; row < out.rowCount(); ++row)
            if (out.entry(row).kind == TranscriptEntry::Kind::User)
                users << out.entry(row).text.section(QLatin1Char('\n'), -1);
        QCOMPARE(users, QStringList({QStringLiteral("an earlier question"),
                                     QStringLiteral("explain the build")}));
        // The reply as far as it streamed since the monitor connected.
        QVERIFY(out.entry(out.rowCount() - 1).text.endsWith(QStringLiteral("monitor connects")));
    }

    // A tool the CLI asks about: the request reaches the session (and a monitor that connects
    // later, through the service's replay), the answer goes back over the WebSocket, and the
    // resolution empties both lists.
    void permissionRequestIsAnswered() {
        AgentRig rig;
        QVERIFY(rig.start());
        MonitorSession s;
        QSignalSpy requested(&s, &MonitorSession::permissionRequested);
        QSignalSpy resolved(&s, &MonitorSession::permissionResolved);
        QVERIFY(open(s, rig));
        const QString path = rig.cwd + QStringLiteral("/granted.txt");
        rig.mock.queueToolUse(QStringLiteral("Write"),
                              {{QStringLiteral("file_path"), path},
                               {QStringLiteral("content"), QStringLiteral("x")}});
        rig.mock.queueText(QStringLiteral("written"));
        QCOMPARE(rig.send(QStringLiteral("write the file")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(requested.count(), 1, 30000);
        JsonListModel &pending = s.permissionRequests();
        QCOMPARE(pending.rowCount(), 1);
        const QString id = pending.item(0).value(k::Id).toString();
        QCOMPARE(requested.at(0).at(0).toJsonObject().value(k::Id).toString(), id);
        QVERIFY(pending.index(0).data().toString().contains(QStringLiteral("Write")));
        const int row = s.agents().rowOf(rig.agentId);
        QTRY_VERIFY(s.agents()
                        .index(row, AgentsModel::Status)
                        .data()
                        .toString()
                        .startsWith(QStringLiteral("waiting_permission")));

        MonitorSession late;
        QVERIFY(open(late, rig));
        QTRY_COMPARE(late.permissionRequests().rowCount(), 1);

        s.answerPermission(id, true);
        QTRY_COMPARE(resolved.count(), 1);
        QCOMPARE(resolved.at(0).at(0).toString(), id);
        QCOMPARE(pending.rowCount(), 0);
        QTRY_COMPARE(late.permissionRequests().rowCount(), 0);
        QVERIFY(rig.waitTurns(1));
        QVERIFY(QFile::exists(path));
    }

    // A boss command from the monitor; the decision appears in delegations() when sent and is
    // updated in place (same id) when the subordinate's turn completes it.
    void delegationsOfTheSelectedBoss() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString bossId = spawnBoss(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());
        MonitorSession s;
        QVERIFY(open(s, rig));
        s.selectBoss(bossId);
        QCOMPARE(s.selectedBoss(), bossId);
        JsonListModel &decisions = s.delegations();

        rig.mock.queueText(
            QStringLiteral("agent-1 should take this.\n") +
            fenced(
                "delegation",
                json(QJsonObject{{QStringLiteral("agentName"), QStringLiteral("agent-1")},
                                 {QStringLiteral("task"), QStringLiteral("Fix the login bug")}})));
        rig.mock.queueText(QStringLiteral("Fixed."));         // the subordinate's turn
        rig.mock.queueText(QStringLiteral("Thanks, noted.")); // the boss reads the outcome
        QVERIFY(s.sendBossCommand(bossId, QStringLiteral("Please fix the login bug")));
        QTRY_COMPARE_WITH_TIMEOUT(decisions.rowCount(), 1, 30000);
        const QString id = decisions.item(0).value(k::Id).toString();
        QCOMPARE(decisions.item(0).value(flotilla::wire::boss::key::SelectedAgentId).toString(),
                 rig.agentId);
        QVERIFY(decisions.index(0).data().toString().contains(QStringLiteral("Fix the login bug")));
        QTRY_COMPARE_WITH_TIMEOUT(decisions.item(0).value(k::Status).toString(),
                                  QStringLiteral("completed"), 30000);
        QCOMPARE(decisions.rowCount(), 1);
        QCOMPARE(decisions.item(0).value(k::Id).toString(), id);

        // Another monitor selecting the boss loads the same history over REST.
        MonitorSession later;
        QVERIFY(open(later, rig));
        later.selectBoss(bossId);
        QTRY_COMPARE(later.delegations().rowCount(), 1);
        QCOMPARE(later.delegations().item(0).value(k::Id).toString(), id);
        later.selectBoss(QString());
        QCOMPARE(later.delegations().rowCount(), 0);
    }
};

QTEST_GUILESS_MAIN(TestMonitorSessionAgent)
#include "tst_monitor_session_agent.moc"
