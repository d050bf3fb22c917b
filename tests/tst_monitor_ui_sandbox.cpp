// The monitor's window with an agent in an allow-list sandbox (real flotillad child and its egress
// proxy, real Claude Code CLI against MockAnthropic, bubblewrap and socat): a connection the
// sandbox refuses (sandbox_blocked) is a line in the agent's conversation, after the command that
// tried, one line for repeats of the same host:port in a turn; the agent's name in the table
// counts them in its tooltip. (The sandbox in the header, the padlock and the hint for refused
// writes: tst_monitor_ui_agents.)

#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentPane.h"
#include "ui/ConversationView.h"

#include "protocol/SandboxNames.h"

#include <QStandardPaths>
#include <QTableView>
#include <QTcpServer>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

class TestMonitorUiSandbox final : public QObject {
    Q_OBJECT

    MonitorUiFixture f;

    QModelIndex tableIndex(const QString &agentId, int column) const {
        const QAbstractItemModel *m = f.table()->model();
        for (int row = 0; row < m->rowCount(); ++row) {
            const QModelIndex i = m->index(row, column);
            if (i.data(AgentsModel::AgentIdRole).toString() == agentId)
                return i;
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("bwrap")).isEmpty() &&
                     !QStandardPaths::findExecutable(QStringLiteral("socat")).isEmpty(),
                 "bwrap or socat not on PATH: run scripts/install-deps.sh");
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY(f.openWindow());
    }

    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    // A command tries a loopback port not on the agent's allow-list twice: the proxy refuses
    // both (nothing connects); the conversation has one line for them, below the command, that
    // says twice; the table's tooltip on the agent's name counts them.
    void refusedConnectionsShowInTheConversation() {
        namespace sb = wire::sandbox;
        QTcpServer forbidden;
        QVERIFY(forbidden.listen(QHostAddress::LocalHost, 0));
        const QString where = QStringLiteral("127.0.0.1:%1").arg(forbidden.serverPort());
        const QString id = f.createAgent(
            QStringLiteral("fenced"),
            {{QString(sb::key::Sandbox), QJsonObject{{sb::key::Mode, sb::mode::Workspace},
                                                     {sb::key::Network, sb::network::Allowlist}}}});
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(f.session->agents().rowOf(id) >= 0);
        f.agentsView()->selectAgent(id);
        QTRY_COMPARE(f.window->agentPane()->agentId(), id);

        const QString curl = QStringLiteral("curl -s -m 10 -o /dev/null -w '%1=%{http_code}' "
                                            "http://%2/; echo");
        const QString twoTries = curl.arg(QStringLiteral("try1"), where) + QStringLiteral("; ") +
                                 curl.arg(QStringLiteral("try2"), where);
        f.mock.queueToolUse(QStringLiteral("Bash"),
                            {{QStringLiteral("command"), twoTries},
                             {QStringLiteral("description"), QStringLiteral("reach out twice")}});
        f.mock.queueText(QStringLiteral("Refused."));
        QCOMPARE(f.sendMessage(id, QStringLiteral("reach out")).status, 200);

        const QString once = QStringLiteral("Sandbox blocked a connection to %1 (not on this "
                                            "agent's allow-list)")
                                 .arg(where);
        const QString twice = once + QStringLiteral(" (2 times)");
        TranscriptModel &out = f.session->conversation(id);
        const auto rowsNaming = [&] {
            QList<int> rows;
            for (int r = 0; r < out.rowCount(); ++r)
                if (out.entry(r).kind == TranscriptEntry::Kind::Notice &&
                    out.entry(r).text.contains(where))
                    rows << r;
            return rows;
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            rowsNaming().size() == 1 && out.entry(rowsNaming().constFirst()).text == twice, 60000);
        const int line = rowsNaming().constFirst();
        // Below the command that tried, which the proxy answered 403 both times.
        QVERIFY(line > 0);
        QCOMPARE(out.entry(line - 1).kind, TranscriptEntry::Kind::Tool);
        QTRY_VERIFY_WITH_TIMEOUT(out.entry(line - 1).hasResult, 30000);
        const TranscriptEntry &command = out.entry(line - 1);
        QVERIFY2(command.toolOutput.contains(QStringLiteral("try1=403")) &&
                     command.toolOutput.contains(QStringLiteral("try2=403")),
                 qPrintable(command.toolOutput));
        QVERIFY(!forbidden.hasPendingConnections());

        ui::ConversationView *view = f.window->agentPane()->conversationView();
        QTRY_VERIFY2(view->toPlainText().contains(twice),
                     qPrintable(view->toPlainText().right(600)));
        QCOMPARE(view->toPlainText().count(once), 1);

        // The table: the count in the name's tooltip, below what the sandbox allows.
        const QModelIndex name = tableIndex(id, AgentsModel::Name);
        QVERIFY(name.isValid());
        QVERIFY(name.data(AgentsModel::SandboxBlockedRole).toInt() >= 2);
        const QString tip = name.data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.startsWith(QStringLiteral("Sandbox workspace")) &&
                     tip.contains(QStringLiteral("\nSandbox blocked ")) &&
                     tip.contains(QStringLiteral("connection(s) while this monitor watched")),
                 qPrintable(tip));
        const QString shot = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-sandbox-blocked.png");
        QVERIFY(f.window->grab().save(shot, "PNG"));
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiSandbox>(argc, argv, QStringLiteral("tst_monitor_ui_sandbox"));
}

#include "tst_monitor_ui_sandbox.moc"
