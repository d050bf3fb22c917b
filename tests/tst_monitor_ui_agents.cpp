// The monitor's window with agents at work (real flotillad child, real Claude Code CLI against
// MockAnthropic): a permission request is an inbox item that shows what it will change and opens
// no window by itself; Enter opens its dialog, whose Grant / Deny reach the agent, and G / D answer
// it from the inbox; the default layout gives the conversation most of the window; the boss view
// shows a boss's team and its delegation decisions, and a fresh window loads an agent's history
// page by page as the conversation is scrolled to the top. A sandboxed agent (bubblewrap) says
// so in its header and with a padlock on its name in the table, and a command's refused write
// outside its working directory gets a hint under the output.

#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentPane.h"
#include "ui/BossPanel.h"
#include "ui/ConversationView.h"
#include "ui/InboxPanel.h"
#include "ui/PermissionDialog.h"
#include "ui/PermissionPrompter.h"

#include "core/InboxModel.h"
#include "protocol/SandboxNames.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QHeaderView>
#include <QIcon>
#include <QJsonArray>
#include <QLabel>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QTextBrowser>
#include <QUuid>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

bool outputContains(const TranscriptModel &out, const QString &text) {
    for (int row = 0; row < out.rowCount(); ++row)
        if (out.entry(row).text.contains(text))
            return true;
    return false;
}

// An entry that ends with `text` ("answer number 1" must not match "answer number 12").
bool outputHasLine(const TranscriptModel &out, const QString &text) {
    for (int row = 0; row < out.rowCount(); ++row)
        if (out.entry(row).text.trimmed().endsWith(text))
            return true;
    return false;
}

QString dump(const TranscriptModel &out) {
    QStringList lines;
    for (int row = 0; row < out.rowCount(); ++row)
        lines << out.index(row).data().toString();
    return lines.join(QLatin1Char('|'));
}

} // namespace

class TestMonitorUiAgents final : public QObject {
    Q_OBJECT

private:
    MonitorUiFixture f;

    ui::PermissionDialog *openPermissionDialog() const {
        const auto dialogs = f.window->findChildren<ui::PermissionDialog *>();
        for (ui::PermissionDialog *d : dialogs)
            if (d->isVisible())
                return d;
        return nullptr;
    }

    ui::InboxPanel *inboxPanel() const {
        return f.window->findChild<ui::InboxPanel *>(QStringLiteral("inboxPanel"));
    }

    // Queues a Write of `path`, sends a message to `agentId`, waits for its inbox item and selects
    // it. No dialog opens by itself.
    bool askToWrite(const QString &agentId, const QString &path) {
        f.mock.queueToolUse(
            QStringLiteral("Write"),
            {{QStringLiteral("file_path"), path},
             {QStringLiteral("content"), QStringLiteral("written by the agent\nsecond line")}});
        f.mock.queueText(QStringLiteral("done writing"));
        if (f.sendMessage(agentId, QStringLiteral("write the file")).status != 200)
            return false;
        InboxModel *inbox = f.window->inbox();
        if (!QTest::qWaitFor(
                [&] { return inbox->rowOfRequest(f.session.get(), requestOf(agentId)) >= 0; },
                60000))
            return false;
        QListView *list = inboxPanel()->list();
        list->setCurrentIndex(
            inbox->index(inbox->rowOfRequest(f.session.get(), requestOf(agentId))));
        list->setFocus();
        return !openPermissionDialog();
    }

    // The agents table's row of `agentId` (through its sort/filter proxy), at `column`.
    QModelIndex tableIndex(const QString &agentId, int column) const {
        const auto *table = f.window->findChild<QTableView *>(QStringLiteral("agentsTable"));
        const QAbstractItemModel *m = table->model();
        for (int row = 0; row < m->rowCount(); ++row) {
            const QModelIndex i = m->index(row, column);
            if (i.data(AgentsModel::AgentIdRole).toString() == agentId)
                return i;
        }
        return {};
    }

    // The pending request of an agent, from the inbox's items.
    QString requestOf(const QString &agentId) const {
        InboxModel *inbox = f.window->inbox();
        for (int row = 0; row < inbox->rowCount(); ++row) {
            const InboxModel::Item item = inbox->item(row);
            if (item.kind == InboxModel::Kind::Permission && item.agentId == agentId)
                return item.requestId;
        }
        return {};
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY(f.openWindow());
    }

    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    // The default layout (1400x860, no saved state): the conversation pane takes at least half
    // the window, the agents table shows all its columns, the inbox never scrolls sideways.
    void defaultLayoutFavoursTheConversation() {
        auto *panes = f.window->findChild<QStackedWidget *>();
        QVERIFY(panes);
        const QSize window = f.window->size();
        const double share =
            double(panes->width() * panes->height()) / double(window.width() * window.height());
        qInfo("conversation pane %dx%d in a %dx%d window: %.0f%%", panes->width(), panes->height(),
              window.width(), window.height(), share * 100);
        QStringList docks; // what the right-hand column is made of, should the share fall short
        for (QDockWidget *d : f.window->findChildren<QDockWidget *>())
            docks << QStringLiteral("%1 %2 (min %3)")
                         .arg(d->objectName())
                         .arg(d->width())
                         .arg(d->widget()->minimumSizeHint().width());
        QVERIFY2(share >= 0.5, qPrintable(QString::number(share) + QLatin1Char(' ') +
                                          docks.join(QStringLiteral(", "))));
        auto *table = f.window->findChild<QTableView *>(QStringLiteral("agentsTable"));
        QVERIFY(table);
        QHeaderView *header = table->horizontalHeader();
        int used = 0;
        for (int c = 0; c < header->count(); ++c)
            used += header->isSectionHidden(c) ? 0 : header->sectionSize(c);
        QVERIFY2(used <= table->viewport()->width(),
                 qPrintable(QStringLiteral("%1 > %2").arg(used).arg(table->viewport()->width())));
        QVERIFY(!table->horizontalScrollBar()->isVisible());
        QCOMPARE(inboxPanel()->list()->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
    }

    void permissionGrantedFromTheDialog() {
        const QString id = f.createAgent(
            QStringLiteral("asker"), {{QStringLiteral("permissionMode"), QStringLiteral("ask")}});
        QVERIFY(!id.isEmpty());
        const QString path = f.cwd + QStringLiteral("/granted.txt");
        QVERIFY2(askToWrite(id, path), "no inbox item, or a dialog opened by itself");
        // The inbox shows what it will write, as added lines under the file's path.
        const QString preview = inboxPanel()->preview()->toPlainText();
        QVERIFY2(preview.contains(path) &&
                     preview.contains(QStringLiteral("+ written by the agent")) &&
                     preview.contains(QStringLiteral("+ second line")),
                 qPrintable(preview));
        const QString shot = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-inbox-write.png");
        QDir().mkpath(QFileInfo(shot).absolutePath());
        QVERIFY(f.window->grab().save(shot, "PNG"));
        // Enter asks for the dialog.
        QTest::keyClick(inboxPanel()->list(), Qt::Key_Return);
        ui::PermissionDialog *dialog = openPermissionDialog();
        QVERIFY(dialog);
        QVERIFY(dialog->findChild<QTextBrowser *>(QStringLiteral("permissionPreview"))
                    ->toPlainText()
                    .contains(QStringLiteral("+ written by the agent")));
        QCOMPARE(dialog->findChild<QLabel *>(QStringLiteral("permissionTool"))->text(),
                 QStringLiteral("Write"));
        QVERIFY(dialog->findChild<QPlainTextEdit *>(QStringLiteral("permissionInput"))
                    ->toPlainText()
                    .contains(path));
        QTRY_COMPARE(str(f.session->agents().agent(id), "status"),
                     QStringLiteral("waiting_permission"));
        dialog->findChild<QPushButton *>(QStringLiteral("grantButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(path), 30000);
        QTRY_COMPARE_WITH_TIMEOUT(str(f.session->agents().agent(id), "status"),
                                  QStringLiteral("idle"), 30000);
        QCOMPARE(f.window->permissions()->openCount(), 0);
    }

    // D in the inbox denies, without any window.
    void permissionDeniedFromTheInbox() {
        const QString id = f.session->agents().agentIds().constFirst();
        const QString path = f.cwd + QStringLiteral("/denied.txt");
        QVERIFY2(askToWrite(id, path), "no inbox item, or a dialog opened by itself");
        // A window that connects while the request waits opens no dialog either: the replayed
        // request is in its inbox.
        f.closeWindow();
        QVERIFY(f.openWindow());
        QVERIFY(QTest::qWaitFor([&] { return !requestOf(id).isEmpty(); }, 30000));
        QVERIFY(!openPermissionDialog());
        InboxModel *inbox = f.window->inbox();
        inboxPanel()->list()->setCurrentIndex(
            inbox->index(inbox->rowOfRequest(f.session.get(), requestOf(id))));
        inboxPanel()->list()->setFocus();
        QTest::keyClick(inboxPanel()->list(), Qt::Key_D);
        QTRY_COMPARE_WITH_TIMEOUT(str(f.session->agents().agent(id), "status"),
                                  QStringLiteral("idle"), 30000);
        QVERIFY(!QFile::exists(path));
        QVERIFY(!openPermissionDialog());
    }

    void bossViewShowsTeamAndDelegations() {
        const QString sub = f.createAgent(QStringLiteral("sub-a"));
        QVERIFY(!sub.isEmpty());
        QVERIFY(f.session->client().sendEvent(
            QStringLiteral("spawn_boss_agent"),
            {{QStringLiteral("name"), QStringLiteral("boss-1")},
             {QStringLiteral("cwd"), f.cwd},
             {QStringLiteral("permissionMode"), QStringLiteral("auto")},
             {QStringLiteral("subordinateIds"), QJsonArray{sub}}}));
        QString boss;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (const QString &id : f.session->agents().agentIds())
                    if (f.session->agents().agent(id).value(QStringLiteral("isBoss")).toBool())
                        boss = id;
                return !boss.isEmpty();
            }(),
            10000);
        f.agentsView()->selectAgent(boss);
        ui::BossPanel *panel = f.window->bossPanel();
        QTRY_COMPARE(panel->bossId(), boss);
        QTRY_COMPARE(panel->team()->model()->rowCount(), 1);
        QCOMPARE(panel->team()->model()->index(0, AgentsModel::Name).data().toString(),
                 QStringLiteral("sub-a"));
        // Selecting a team member keeps its boss's view.
        f.agentsView()->selectAgent(sub);
        QCOMPARE(panel->bossId(), boss);

        // The boss delegates; the decision shows in the list.
        f.mock.queueText(QStringLiteral("I will delegate.\n```delegation\n{\"agentName\": "
                                        "\"sub-a\", \"task\": \"write the tests\", "
                                        "\"reasoning\": \"it knows the code\"}\n```\n"));
        f.mock.queueText(QStringLiteral("tests written"));
        QVERIFY(f.session->client().sendEvent(
            QStringLiteral("send_boss_command"),
            {{QStringLiteral("bossId"), boss},
             {QStringLiteral("command"), QStringLiteral("get the tests written")}}));
        QTRY_VERIFY_WITH_TIMEOUT(panel->delegations()->model()->rowCount() >= 1, 60000);
        // The mock's script is one queue for every agent: let the subordinate's turn take its
        // answer before the next test queues more.
        QTRY_COMPARE_WITH_TIMEOUT(f.mock.pendingTurns(), 0, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(
            f.session->agents().agent(sub).value(QStringLiteral("taskCount")).toInt(), 1, 60000);
        QVERIFY(panel->delegations()->model()->index(0, 0).data().toString().contains(
            QStringLiteral("sub-a")));
    }

    void freshWindowPagesHistoryWhenScrolledToTheTop() {
        // 30 turns: 60 history entries, more than one page (50).
        QCOMPARE(f.mock.pendingTurns(), 0);
        const QString id = f.createAgent(QStringLiteral("pager"));
        QVERIFY(!id.isEmpty());
        for (int i = 1; i <= 30; ++i)
            f.mock.queueText(QStringLiteral("answer number %1").arg(i), 1);
        for (int i = 1; i <= 30; ++i)
            QCOMPARE(f.sendMessage(id, QStringLiteral("question number %1").arg(i)).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(
            f.session->agents().agent(id).value(QStringLiteral("taskCount")).toInt(), 30, 120000);

        // A new window knows nothing streamed: it shows the newest page, then older ones.
        f.closeWindow();
        QVERIFY(f.openWindow());
        QTRY_VERIFY(f.session->agents().rowOf(id) >= 0);
        f.agentsView()->selectAgent(id);
        TranscriptModel &out = f.session->conversation(id);
        QTRY_VERIFY_WITH_TIMEOUT(outputContains(out, QStringLiteral("answer number 30")), 15000);
        QVERIFY(!outputHasLine(out, QStringLiteral("answer number 1")));
        auto *state = f.window->agentPane()->findChild<QLabel *>(QStringLiteral("historyState"));
        QTRY_VERIFY(state->text().contains(QStringLiteral("older")));

        ui::ConversationView *view = f.window->agentPane()->conversationView();
        const int before = out.rowCount();
        view->verticalScrollBar()->setValue(view->verticalScrollBar()->minimum());
        QTRY_VERIFY_WITH_TIMEOUT(out.rowCount() > before, 15000);
        QTRY_VERIFY2_WITH_TIMEOUT(outputHasLine(out, QStringLiteral("answer number 1")),
                                  qPrintable(dump(out)), 15000);
        QTRY_VERIFY(state->text().contains(QStringLiteral("Beginning")));
        // The lines the user was reading stayed in view: not jumped back to the top.
        QVERIFY(view->verticalScrollBar()->value() > view->verticalScrollBar()->minimum());
    }

    void sandboxShowsInTheHeaderTheTableAndRefusedWrites() {
        namespace sbk = wire::sandbox::key;
        QCOMPARE(f.mock.pendingTurns(), 0);
        const QString id = f.createAgent(
            QStringLiteral("boxed"),
            {{QString(sbk::Sandbox), QJsonObject{{sbk::Mode, wire::sandbox::mode::Workspace}}}});
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(f.session->agents().rowOf(id) >= 0);
        f.agentsView()->selectAgent(id);
        QTRY_COMPARE(f.window->agentPane()->agentId(), id);
        const auto usage = f.window->agentPane()->findChild<QLabel *>(QStringLiteral("agentUsage"));
        QTRY_VERIFY2(
            usage->text().contains(QStringLiteral("sandbox: workspace \u00b7 network full")),
            qPrintable(usage->text()));
        QVERIFY2(usage->toolTip().contains(QStringLiteral("working directory")),
                 qPrintable(usage->toolTip()));
        // The table: a padlock on its name, the sandbox in the name's tooltip. An auto agent
        // without a sandbox of its own gets the service's default (off here): no padlock, and a
        // tooltip that says so.
        const QModelIndex name = tableIndex(id, AgentsModel::Name);
        QVERIFY(name.isValid());
        QVERIFY(!name.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY2(
            name.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("Sandbox workspace")),
            qPrintable(name.data(Qt::ToolTipRole).toString()));
        const QString plain = f.createAgent(QStringLiteral("plain"));
        QVERIFY(!plain.isEmpty());
        QTRY_VERIFY(tableIndex(plain, AgentsModel::Name).isValid());
        QVERIFY(!tableIndex(plain, AgentsModel::Name).data(Qt::DecorationRole).isValid());
        QTRY_COMPARE(tableIndex(plain, AgentsModel::Name).data(Qt::ToolTipRole).toString(),
                     QStringLiteral("No sandbox (the service's default for auto agents): the "
                                    "agent's commands run unconfined."));

        // A write outside the working directory fails in the sandbox; the open row says why.
        const QString outside =
            QStringLiteral("/etc/flotilla-ui-") + QUuid::createUuid().toString(QUuid::Id128);
        f.mock.queueToolUse(QStringLiteral("Bash"),
                            {{QStringLiteral("command"),
                              QStringLiteral("touch %1; echo outside-rc=$?").arg(outside)},
                             {QStringLiteral("description"), QStringLiteral("write outside")}});
        f.mock.queueText(QStringLiteral("Tried."));
        QCOMPARE(f.sendMessage(id, QStringLiteral("write outside")).status, 200);
        TranscriptModel &out = f.session->conversation(id);
        int row = -1;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (int r = 0; r < out.rowCount(); ++r)
                    if (out.entry(r).kind == TranscriptEntry::Kind::Tool && out.entry(r).hasResult)
                        row = r;
                return row >= 0;
            }(),
            60000);
        QVERIFY2(out.entry(row).toolOutput.contains(QStringLiteral("Read-only file system")),
                 qPrintable(out.entry(row).toolOutput));
        QVERIFY(!QFileInfo::exists(outside));
        ui::ConversationView *view = f.window->agentPane()->conversationView();
        const QString hint =
            QStringLiteral("The sandbox allows writes only in the agent's working");
        QVERIFY(!view->toPlainText().contains(hint)); // closed rows stay one line
        out.setExpanded(row, true);
        QTRY_VERIFY2(view->toPlainText().contains(hint),
                     qPrintable(view->toPlainText().right(600)));
        const QString shot = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-sandbox.png");
        QVERIFY(f.window->grab().save(shot, "PNG"));

        // Its sandbox turned off by PATCH: the header says so, the padlock and the hint go.
        namespace sbm = wire::sandbox::mode;
        QTRY_COMPARE_WITH_TIMEOUT(str(f.session->agents().agent(id), "status"),
                                  QStringLiteral("idle"), 30000);
        QCOMPARE(f.http
                     .patch(f.url(QStringLiteral("/api/agents/%1").arg(id)),
                            {{QString(sbk::Sandbox), QJsonObject{{sbk::Mode, sbm::Off}}}})
                     .status,
                 200);
        QTRY_VERIFY2(usage->text().contains(QStringLiteral("no sandbox")),
                     qPrintable(usage->text()));
        QVERIFY(!tableIndex(id, AgentsModel::Name).data(Qt::DecorationRole).isValid());
        QTRY_VERIFY(!view->toPlainText().contains(hint));

        // The service restarted with workspace as its default for auto agents (the monitor asks
        // for it again on reconnecting): the agent without a sandbox of its own is confined now,
        // and its header says that is the default; the one turned off stays off. Last in the
        // suite: the service keeps that default.
        const quint16 port = f.service.port();
        QVERIFY(f.service.terminate());
        QVERIFY2(f.startService(port, QString(sbm::Workspace)), f.service.stdErr().constData());
        QTRY_VERIFY_WITH_TIMEOUT(
            !tableIndex(plain, AgentsModel::Name).data(Qt::DecorationRole).value<QIcon>().isNull(),
            15000);
        QVERIFY2(tableIndex(plain, AgentsModel::Name)
                     .data(Qt::ToolTipRole)
                     .toString()
                     .startsWith(QStringLiteral(
                         "Sandbox workspace (the service's default for auto agents)")),
                 qPrintable(tableIndex(plain, AgentsModel::Name).data(Qt::ToolTipRole).toString()));
        QVERIFY(!tableIndex(id, AgentsModel::Name).data(Qt::DecorationRole).isValid());
        QString asker; // an ask agent: no sandbox by default, whatever the service's default
        for (const QString &other : f.session->agents().agentIds())
            if (str(f.session->agents().agent(other), "name") == QLatin1String("asker"))
                asker = other;
        QVERIFY(!asker.isEmpty());
        QVERIFY(!tableIndex(asker, AgentsModel::Name).data(Qt::DecorationRole).isValid());
        QVERIFY(tableIndex(asker, AgentsModel::Name)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .startsWith(QStringLiteral("No sandbox (the default for ask agents)")));
        f.agentsView()->selectAgent(plain);
        QTRY_COMPARE(f.window->agentPane()->agentId(), plain);
        QTRY_VERIFY2(usage->text().contains(
                         QStringLiteral("sandbox: workspace (default) \u00b7 network full")),
                     qPrintable(usage->text()));
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiAgents>(argc, argv, QStringLiteral("tst_monitor_ui_agents"));
}

#include "tst_monitor_ui_agents.moc"
