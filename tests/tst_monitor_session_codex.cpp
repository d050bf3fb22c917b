// The monitor following a Codex agent exactly as a Claude one: the in-process
// service drives the real `codex` CLI (app-server) against the scripted Responses API mock; the
// session shows the provider, turns the streamed output into the same transcript (the user's
// message, a command as a tool entry with its output, the reply), lists the agent's permission
// request and answers it, and a later monitor reads the conversation from the rollout history.

#include "core/MonitorSession.h"
#include "support/AgentRig.h"
#include "support/MonitorFixture.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

using namespace flotilla::test;
using namespace flotilla::monitor;

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

class TestMonitorSessionCodex final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void codexAgentLooksLikeAnyAgent() {
        AgentRig rig(QStringLiteral("codex"));
        QVERIFY(rig.start());
        MonitorSession s;
        QVERIFY(open(s, rig));
        const int row = s.agents().rowOf(rig.agentId);
        QVERIFY(row >= 0);
        QCOMPARE(s.agents().index(row, AgentsModel::Provider).data().toString(),
                 QStringLiteral("codex \u00b7 gpt-mock"));

        // A command the agent must ask for (ask mode): the request is listed and answered.
        const QString file = rig.cwd + QStringLiteral("/from-monitor.txt");
        rig.model().queueCommand(QStringLiteral("touch from-monitor.txt && echo codex-tool-ok"));
        rig.model().queueText(QStringLiteral("Made it.\nSecond line."), 5);
        const auto sent = waitReply(
            [&](auto cb) { s.sendMessage(rig.agentId, QStringLiteral("make the file"), cb); });
        QCOMPARE(sent.status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(s.permissionRequests().rowCount() == 1, 60000);
        const QJsonObject request = s.permissionRequests().item(0);
        QCOMPARE(request.value(QStringLiteral("tool")).toString(),
                 QStringLiteral("commandExecution"));
        s.answerPermission(request.value(QStringLiteral("id")).toString(), true);
        QTRY_COMPARE_WITH_TIMEOUT(s.permissionRequests().rowCount(), 0, 10000);
        QVERIFY(rig.waitTurns(1, 60000));
        QVERIFY(QFile::exists(file));

        TranscriptModel &out = s.conversation(rig.agentId);
        QTRY_VERIFY(out.rowCount() > 0 && !out.inTurn());
        QCOMPARE(out.entry(0).kind, TranscriptEntry::Kind::User);
        QCOMPARE(out.entry(0).text, QStringLiteral("make the file"));
        const int call = rowOfKind(out, TranscriptEntry::Kind::Tool);
        QVERIFY2(call > 0, qPrintable(dump(out)));
        QCOMPARE(out.entry(call).toolName, QStringLiteral("commandExecution"));
        QVERIFY(out.entry(call)
                    .toolInput.value(QStringLiteral("command"))
                    .toString()
                    .contains(QStringLiteral("from-monitor.txt")));
        QVERIFY(out.entry(call).toolOutput.contains(QStringLiteral("codex-tool-ok")));
        QCOMPARE(out.entry(out.rowCount() - 1).kind, TranscriptEntry::Kind::Assistant);
        QCOMPARE(out.entry(out.rowCount() - 1).text, QStringLiteral("Made it.\nSecond line."));
        QTRY_COMPARE(s.agents().index(row, AgentsModel::Status).data().toString(),
                     QStringLiteral("idle"));

        // A monitor started later reads the same conversation from Codex's rollout.
        MonitorSession later;
        QVERIFY(open(later, rig));
        bool called = false;
        later.loadOlderHistory(rig.agentId, [&](bool) { called = true; });
        QTRY_VERIFY(called);
        const TranscriptModel &history = later.conversation(rig.agentId);
        const int asked = rowOfKind(history, TranscriptEntry::Kind::User);
        QVERIFY2(asked >= 0, qPrintable(dump(history)));
        QVERIFY(history.entry(asked).text.endsWith(QStringLiteral("make the file")));
        const int used = rowOfKind(history, TranscriptEntry::Kind::Tool);
        QVERIFY2(used > asked, qPrintable(dump(history)));
        QCOMPARE(history.entry(history.rowCount() - 1).text,
                 QStringLiteral("Made it.\nSecond line."));
    }
};

QTEST_GUILESS_MAIN(TestMonitorSessionCodex)
#include "tst_monitor_session_codex.moc"
