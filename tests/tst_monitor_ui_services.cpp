// Several services in one window: the window's own flotillad and a second one (a
// "build box"), each the real binary with the real Claude Code CLI against its own MockAnthropic.
// Added through the window, the second service's agents join the one table with a Service
// column; its connection state is in the status bar; selecting one of its agents shows that
// service's conversation, and a message sent from there reaches that service's model; its
// permission requests are in the one inbox and answered there; stop goes to the agent's own
// service; the counts cover both; the window reopens with both; removing it takes its rows away.

#include "core/InboxModel.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentActions.h"
#include "ui/AgentPane.h"
#include "ui/ConnectionStatusLabel.h"
#include "ui/ConversationView.h"
#include "ui/ExtraServices.h"
#include "ui/MessageComposer.h"

#include <QAction>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QStatusBar>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

class TestMonitorUiServices final : public QObject {
    Q_OBJECT

    MonitorUiFixture f;      // the window and its service
    MonitorUiFixture remote; // the build box
    QString local;
    QString far; // an `ask` agent on the build box

    QString cell(const QString &agentId, int column) const {
        const QAbstractItemModel *m = f.table()->model();
        for (int row = 0; row < m->rowCount(); ++row) {
            const QModelIndex i = m->index(row, 0);
            if (i.data(AgentsModel::AgentIdRole).toString() == agentId)
                return m->index(row, column).data().toString();
        }
        return {};
    }
    bool shown(const QString &agentId) const { return !cell(agentId, AgentsModel::Name).isEmpty(); }
    int permissionRow(const QString &agentId) const {
        const InboxModel &inbox = *f.window->inbox();
        for (int row = 0; row < inbox.rowCount(); ++row)
            if (inbox.item(row).kind == InboxModel::Kind::Permission &&
                inbox.item(row).agentId == agentId)
                return row;
        return -1;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY2(remote.startService(), remote.service.stdErr().constData());
        QVERIFY(f.openWindow());
        local = f.createAgent(QStringLiteral("desk"));
        far = remote.createAgent(QStringLiteral("builder"),
                                 {{QStringLiteral("permissionMode"), QStringLiteral("ask")}});
        QVERIFY(!local.isEmpty() && !far.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(shown(local), 10000);
        QVERIFY(f.table()->isColumnHidden(AgentsModel::Service)); // one service: no column
    }
    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
        remote.service.terminate();
    }

    void bothServicesInOneTable() {
        QVERIFY(f.window->extraServices().add({remote.baseUrl(), {}}, QStringLiteral("build-box")));
        QVERIFY(!f.window->extraServices().add({remote.baseUrl(), {}}, QStringLiteral("again")));
        QTRY_VERIFY_WITH_TIMEOUT(shown(far), 10000);
        QVERIFY(shown(local));
        QVERIFY(!f.table()->isColumnHidden(AgentsModel::Service));
        QCOMPARE(cell(far, AgentsModel::Service), QStringLiteral("build-box"));
        QCOMPARE(cell(local, AgentsModel::Service), QString());
        const auto *state = f.window->findChild<ui::ConnectionStatusLabel *>(
            QStringLiteral("connection:build-box"));
        QVERIFY(state);
        QTRY_VERIFY(state->text().contains(QStringLiteral("Connected")));
        const auto *counts = f.window->findChild<QLabel *>(QStringLiteral("agentCounts"));
        QTRY_VERIFY2(counts->text().startsWith(QStringLiteral("2 agent(s)")) &&
                         counts->text().contains(QStringLiteral("on 2 services")),
                     qPrintable(counts->text()));
    }

    // The build box's agent: its own pane, its conversation, a message to its own model.
    void anAgentOfTheSecondServiceIsShownAndTalkedTo() {
        f.agentsView()->selectAgent(far);
        ui::AgentPane *pane = f.window->agentPane();
        QTRY_COMPARE(pane->agentId(), far);
        remote.mock.queueText(QStringLiteral("Hello from the build box."));
        const int localRequests = f.mock.requestCount();
        // Ctrl+L: the message box of the shown agent's pane (this service's one).
        f.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(f.window.get()));
        QTest::keyClick(f.window.get(), Qt::Key_L, Qt::ControlModifier);
        QTRY_VERIFY(pane->composer()->editor()->hasFocus());
        QTest::keyClicks(pane->composer()->editor(), QStringLiteral("status?"));
        QTest::keyClick(pane->composer()->editor(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(pane->conversationView()->toPlainText().contains(
                                     QStringLiteral("Hello from the build box.")),
                                 60000);
        QVERIFY(remote.mock.lastUserTextOf(remote.mock.requestCount() - 1)
                    .endsWith(QStringLiteral("status?")));
        QCOMPARE(f.mock.requestCount(), localRequests);

        // Back to the first service's agent: its own pane again.
        f.agentsView()->selectAgent(local);
        QTRY_COMPARE(f.window->agentPane()->agentId(), local);
        QVERIFY(f.window->agentPane() != pane);
    }

    // Its permission request is in the one inbox; the grant goes to its service.
    void itsPermissionRequestIsAnsweredFromTheInbox() {
        const QString file = remote.cwd + QStringLiteral("/granted.txt");
        remote.mock.queueToolUse(
            QStringLiteral("Bash"),
            {{QStringLiteral("command"), QString(QStringLiteral("touch ") + file)}});
        remote.mock.queueText(QStringLiteral("made it"));
        QCOMPARE(remote.sendMessage(far, QStringLiteral("make the file")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(permissionRow(far) >= 0, 60000);
        const InboxModel::Item item = f.window->inbox()->item(permissionRow(far));
        QCOMPARE(item.service, QStringLiteral("build-box"));
        const auto *counts = f.window->findChild<QLabel *>(QStringLiteral("agentCounts"));
        QTRY_VERIFY(counts->text().contains(QStringLiteral("1 waiting for permission")));
        f.window->inbox()->answer(permissionRow(far), true);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(file), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(permissionRow(far), -1, 10000);
    }

    // Stop on a selected agent of the build box goes to the build box.
    void stopGoesToTheAgentsOwnService() {
        remote.mock.queueSlow(QStringLiteral("a long answer that will be stopped"), 20000);
        QCOMPARE(remote.sendMessage(far, QStringLiteral("talk slowly")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(cell(far, AgentsModel::Status).section(u' ', 0, 0),
                                  QStringLiteral("working"), 30000);
        f.agentsView()->selectAgent(far);
        f.window->agentActions()->stopAgents->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(cell(far, AgentsModel::Status) != QLatin1String("working"), 15000);
        QVERIFY(!f.window->statusBar()->currentMessage().contains(QStringLiteral("failed")));
    }

    // The window reopens with both services; removing the second takes its rows away.
    void reopensWithBothThenRemoves() {
        f.window->close(); // saves the layout
        f.closeWindow();
        QVERIFY(f.openWindow());
        QTRY_VERIFY_WITH_TIMEOUT(shown(far) && shown(local), 10000);
        f.agentsView()->selectAgent(far);
        QTRY_COMPARE(f.window->agentPane()->agentId(), far);
        const QList<MonitorSession *> extra = f.window->extraServices().sessions();
        QCOMPARE(extra.size(), 1);
        f.window->extraServices().remove(extra.first());
        QTRY_VERIFY(!shown(far));
        QVERIFY(shown(local));
        QVERIFY(f.table()->isColumnHidden(AgentsModel::Service));
        QVERIFY(!f.window->findChild<ui::ConnectionStatusLabel *>(
            QStringLiteral("connection:build-box")));
        // The next window opens with the first service only.
        f.window->close();
        f.closeWindow();
        QVERIFY(f.openWindow());
        QTRY_VERIFY_WITH_TIMEOUT(shown(local), 10000);
        QVERIFY(f.window->extraServices().sessions().isEmpty());
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiServices>(argc, argv,
                                              QStringLiteral("tst_monitor_ui_services"));
}

#include "tst_monitor_ui_services.moc"
