// The monitor following a real agent turn: the in-process service drives the pinned Claude
// Code CLI against the scripted model (AgentRig); the session, connected over loopback, turns
// the streamed output into lines and tool entries, follows status and context, and pages the
// conversation's history from the CLI's session file without repeating what it streamed.

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

QStringList texts(const OutputModel &m) {
    QStringList out;
    for (int row = 0; row < m.rowCount(); ++row)
        out << m.index(row).data().toString();
    return out;
}

int rowOfKind(const OutputModel &m, OutputEntry::Kind kind, int from = 0) {
    for (int row = from; row < m.rowCount(); ++row) {
        if (m.index(row).data(OutputModel::KindRole).toInt() == int(kind))
            return row;
    }
    return -1;
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
    void streamedTurnBecomesLines() {
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

        OutputModel &out = s.output(rig.agentId);
        // The final chunk closes the turn: nothing is left open.
        QTRY_VERIFY(out.rowCount() > 0 &&
                    !out.index(out.rowCount() - 1).data(OutputModel::OpenRole).toBool());
        const QStringList lines = texts(out);
        QCOMPARE(lines.first(), QStringLiteral("> run the probe"));
        const int call = rowOfKind(out, OutputEntry::ToolCall);
        QVERIFY2(call > 0, qPrintable(lines.join(QLatin1Char('|'))));
        QVERIFY(lines[call].startsWith(QStringLiteral("Bash  {")));
        QVERIFY(lines[call].contains(QStringLiteral("echo monitor-tool-ok")));
        const int result = rowOfKind(out, OutputEntry::ToolResult, call);
        QVERIFY(result > call);
        QCOMPARE(lines[result], QStringLiteral("monitor-tool-ok"));
        QCOMPARE(lines.mid(lines.size() - 2),
                 QStringList({QStringLiteral("All done."), QStringLiteral("Second line.")}));

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
        const OutputModel &history = later.output(rig.agentId);
        const QStringList old = texts(history);
        QVERIFY2(old.size() >= 5, qPrintable(old.join(QLatin1Char('|'))));
        // The user's message (the CLI may put reminder lines before it in the same entry).
        const int asked = int(old.indexOf(QStringLiteral("> run the probe")) >= 0
                                  ? old.indexOf(QStringLiteral("> run the probe"))
                                  : old.indexOf(QStringLiteral("run the probe")));
        QVERIFY2(asked >= 0, qPrintable(old.join(QLatin1Char('|'))));
        QCOMPARE(history.index(asked).data(OutputModel::KindRole).toInt(), int(OutputEntry::Info));
        QVERIFY(rowOfKind(history, OutputEntry::ToolCall) > 0);
        QVERIFY(old.contains(QStringLiteral("monitor-tool-ok")));
        QCOMPARE(old.constLast(), QStringLiteral("Second line."));
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
        OutputModel &out = s.output(rig.agentId);
        QTRY_VERIFY(out.rowCount() > 0); // some deltas streamed
        QVERIFY(waitReply([&](auto cb) { s.stopAgents({rig.agentId}, cb); }).ok());
        QTRY_COMPARE(out.index(out.rowCount() - 1).data().toString(), QStringLiteral("[stopped]"));
        QCOMPARE(out.index(out.rowCount() - 1).data(OutputModel::KindRole).toInt(),
                 int(OutputEntry::Info));
        QTRY_COMPARE(s.agents().index(row, AgentsModel::Status).data().toString(),
                     QStringLiteral("stopped"));
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
