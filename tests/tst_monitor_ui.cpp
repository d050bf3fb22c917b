// The monitor's window against a real flotillad (a child process on a free port, its agents the
// pinned Claude Code CLI talking to MockAnthropic in this process): the agents table follows the
// service, the filter and sorting work, actions reach the service, the connection state is
// visible across a service restart (selection kept), the connect dialog remembers services and
// tokens, and a screenshot of the window with streaming output is written and is not blank.
// Runs under Xvfb (see monitor_ui_tests.cmake); everything it writes lives in a temp HOME.

#include "core/MonitorSession.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentActions.h"
#include "ui/AgentPane.h"
#include "ui/AgentsProxy.h"
#include "ui/AgentsView.h"
#include "ui/BossPanel.h"
#include "ui/ConnectDialog.h"
#include "ui/ConnectionStatusLabel.h"
#include "ui/ConversationView.h"
#include "ui/FileCredentialStore.h"
#include "ui/HistorySearchPanel.h"
#include "ui/MainWindow.h"
#include "ui/MessageComposer.h"
#include "ui/PermissionDialog.h"
#include "ui/PermissionPrompter.h"
#include "ui/ServiceProfiles.h"
#include "ui/ShortcutsDialog.h"
#include "ui/TasksPanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QHeaderView>
#include <QImage>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace {

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// Names shown in the table, in view order.
QStringList tableNames(const QTableView *table) {
    QStringList names;
    for (int row = 0; row < table->model()->rowCount(); ++row)
        names << table->model()->index(row, AgentsModel::Name).data().toString();
    return names;
}

// Distinct colours in a sample grid of the image (every 3rd pixel), enough to tell a rendered
// window from a blank or single-colour one.
int distinctColours(const QImage &image) {
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

} // namespace

class TestMonitorUi final : public QObject {
    Q_OBJECT

private:
    MonitorUiFixture f;
    bool m_execAnswered = false;
    QJsonObject m_execResult;

    QUrl url(const QString &path) const { return f.url(path); }
    ui::AgentsView *agentsView() const { return f.agentsView(); }
    QTableView *table() const { return f.table(); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        for (const char *name : {"alpha-builder", "beta-reviewer", "gamma-researcher"}) {
            const QString n = QLatin1String(name);
            QVERIFY(!f.createAgent(n, {{QStringLiteral("class"), n.section(QLatin1Char('-'), 1)}})
                         .isEmpty());
        }
        QVERIFY(f.openWindow());
    }

    void cleanupTestCase() {
        if (f.window)
            f.window->saveLayout();
        f.closeWindow();
        f.service.terminate();
    }

    void tableShowsAgents() {
        QTRY_COMPARE(table()->model()->rowCount(), 3);
        // Sorted by name (ascending) by default.
        QCOMPARE(tableNames(table()),
                 QStringList({QStringLiteral("alpha-builder"), QStringLiteral("beta-reviewer"),
                              QStringLiteral("gamma-researcher")}));
        const QModelIndex status = table()->model()->index(0, AgentsModel::Status);
        QCOMPARE(status.data().toString(), QStringLiteral("idle"));
        QVERIFY(!status.data(Qt::DecorationRole).value<QIcon>().isNull());
        auto *state = f.window->findChild<ui::ConnectionStatusLabel *>();
        QVERIFY(state);
        QTRY_COMPARE(state->property("connectionState").toString(),
                     client::toString(client::ConnectionState::Connected));
        QVERIFY(state->text().contains(QStringLiteral("Connected")));
        auto *counts = f.window->findChild<QLabel *>(QStringLiteral("agentCounts"));
        QVERIFY(counts->text().startsWith(QStringLiteral("3 agent")));
    }

    void filterNarrowsTheTable_data() {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QStringList>("expected");
        QTest::newRow("by name") << QStringLiteral("beta")
                                 << QStringList{QStringLiteral("beta-reviewer")};
        QTest::newRow("case-insensitive")
            << QStringLiteral("GAMMA") << QStringList{QStringLiteral("gamma-researcher")};
        QTest::newRow("by status column")
            << QStringLiteral("idle")
            << QStringList{QStringLiteral("alpha-builder"), QStringLiteral("beta-reviewer"),
                           QStringLiteral("gamma-researcher")};
        QTest::newRow("nothing") << QStringLiteral("no-such-agent") << QStringList{};
    }

    void filterNarrowsTheTable() {
        QFETCH(QString, filter);
        QFETCH(QStringList, expected);
        QTRY_COMPARE(table()->model()->rowCount(), 3);
        QLineEdit *edit = agentsView()->filterEdit();
        edit->clear();
        QTest::keyClicks(edit, filter);
        QCOMPARE(tableNames(table()), expected);
        edit->clear();
        QCOMPARE(table()->model()->rowCount(), 3);
    }

    void ctrlFFocusesTheFilter() {
        f.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(f.window.get()));
        table()->setFocus();
        QTest::keyClick(f.window.get(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(agentsView()->filterEdit()->hasFocus());
        QTest::keyClick(f.window.get(), Qt::Key_L, Qt::ControlModifier);
        QTRY_VERIFY(!agentsView()->filterEdit()->hasFocus());
    }

    void sortingByClickingTheHeader() {
        QHeaderView *header = table()->horizontalHeader();
        header->setSortIndicator(AgentsModel::Name, Qt::DescendingOrder);
        QCOMPARE(tableNames(table()).constFirst(), QStringLiteral("gamma-researcher"));
        header->setSortIndicator(AgentsModel::Name, Qt::AscendingOrder);
        QCOMPARE(tableNames(table()).constFirst(), QStringLiteral("alpha-builder"));
    }

    void agentCreatedAndDeletedElsewhereAppearsAndDisappears() {
        const QString id = f.createAgent(QStringLiteral("delta-remote"));
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(tableNames(table()).contains(QStringLiteral("delta-remote")));
        QCOMPARE(f.http.del(url(QStringLiteral("/api/agents/") + id)).status, 204);
        QTRY_VERIFY(!tableNames(table()).contains(QStringLiteral("delta-remote")));
        QCOMPARE(table()->model()->rowCount(), 3);
    }

    void deleteActionAsksAndDeletesTheSelection() {
        QVERIFY(!f.createAgent(QStringLiteral("epsilon-temp")).isEmpty());
        QVERIFY(!f.createAgent(QStringLiteral("zeta-temp")).isEmpty());
        QTRY_COMPARE(table()->model()->rowCount(), 5);
        // Multi-selection: both temp agents.
        agentsView()->filterEdit()->setText(QStringLiteral("-temp"));
        QCOMPARE(table()->model()->rowCount(), 2);
        table()->selectAll();
        QCOMPARE(agentsView()->selectedAgentIds().size(), 2);
        ui::AgentActions *actions = f.window->agentActions();
        QVERIFY(actions->deleteAgents->isEnabled());
        actions->deleteAgents->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = f.window->findChild<QMessageBox *>(QStringLiteral("confirmDelete"))));
        QVERIFY(box->text().contains(QStringLiteral("epsilon-temp")));
        QPushButton *yes = nullptr;
        for (QAbstractButton *b : box->buttons())
            if (box->buttonRole(b) == QMessageBox::DestructiveRole)
                yes = qobject_cast<QPushButton *>(b);
        QVERIFY(yes);
        yes->click();
        QTRY_COMPARE(table()->model()->rowCount(), 0);
        agentsView()->filterEdit()->clear();
        QTRY_COMPARE(table()->model()->rowCount(), 3);
        QCOMPARE(f.http.get(url(QStringLiteral("/api/agents"))).array().size(), 3);
    }

    void contextBarFollowsContextUpdates() {
        // A context_update of the agent shows in the bar's roles (the delegate paints them).
        const QString id = f.session->agents().agentIdAt(0);
        f.session->agents().setContext(id, 50000, 200000);
        const int row = f.session->agents().rowOf(id);
        const QModelIndex ctx = f.session->agents().index(row, AgentsModel::Context);
        QCOMPARE(ctx.data(AgentsModel::ContextFractionRole).toDouble(), 0.25);
    }

    void streamingOutputInTheAgentPane() {
        const QString id = f.session->agents().agentIdAt(0); // alpha-builder, the first created
        agentsView()->selectAgent(id);
        ui::AgentPane *pane = f.window->agentPane();
        QTRY_COMPARE(pane->agentId(), id);

        f.mock.queueToolUse(QStringLiteral("Bash"),
                            {{QStringLiteral("command"), QStringLiteral("echo monitor-tool-ok")},
                             {QStringLiteral("description"), QStringLiteral("say ok")}});
        QStringList lines;
        for (int i = 1; i <= 12; ++i)
            lines << QStringLiteral("Line %1 of the answer streamed to the monitor.").arg(i);
        f.mock.queueText(lines.join(QLatin1Char('\n')), 8);

        // Type and send with Ctrl+Enter, as a user would.
        ui::MessageComposer *composer = pane->composer();
        composer->editor()->setFocus();
        QTest::keyClicks(composer->editor(), QStringLiteral("run echo and summarise"));
        QTest::keyClick(composer->editor(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(composer->text().isEmpty(), 10000);

        TranscriptModel &out = f.session->conversation(id);
        auto hasKind = [&out](TranscriptEntry::Kind kind) {
            for (int row = 0; row < out.rowCount(); ++row)
                if (out.entry(row).kind == kind)
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hasKind(TranscriptEntry::Kind::Tool), 60000);
        ui::ConversationView *view = pane->conversationView();
        QTRY_VERIFY_WITH_TIMEOUT(
            view->toPlainText().contains(QStringLiteral("Line 12 of the answer")), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(str(f.session->agents().agent(id), "status"),
                                  QStringLiteral("idle"), 60000);
        QCOMPARE(view->transcript(), &out);
        QVERIFY(view->toPlainText().contains(QStringLiteral("run echo and summarise")));
        // Following the stream: the view sits at the bottom.
        QScrollBar *bar = view->verticalScrollBar();
        QTRY_VERIFY(bar->value() >= bar->maximum() - 4);
    }

    void historySearchShowsMatches() {
        ui::AgentPane *pane = f.window->agentPane();
        QVERIFY(!pane->agentId().isEmpty());
        pane->searchPanel()->search(QStringLiteral("Line 7"));
        QTRY_VERIFY_WITH_TIMEOUT(pane->searchPanel()->results()->count() > 0, 15000);
        QVERIFY(pane->searchPanel()
                    ->results()
                    ->item(0)
                    ->data(Qt::UserRole)
                    .toString()
                    .contains(QStringLiteral("Line 7")));
    }

    void runningTaskShowsOutputAndCanBeKilled() {
        const QString agentId = f.window->agentPane()->agentId();
        // POST /api/exec answers when the command ends: fire it and watch the events.
        f.session->client().post(
            QStringLiteral("/api/exec"),
            {{QStringLiteral("agentId"), agentId},
             {QStringLiteral("command"),
              QStringLiteral("for i in 1 2 3 4 5; do echo task line $i; done; sleep 60")}},
            // Members, not locals: the answer comes after this test function returned.
            [this](const client::RestReply &r) {
                m_execAnswered = true;
                m_execResult = r.body.object();
            });
        ui::TasksPanel *tasks = f.window->tasksPanel();
        QTRY_COMPARE_WITH_TIMEOUT(tasks->list()->model()->rowCount(), 1, 10000);
        QTRY_VERIFY(!tasks->currentTaskId().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(
            tasks->outputView()->toPlainText().contains(QStringLiteral("task line 5")), 10000);
        auto *kill = f.window->findChild<QPushButton *>(QStringLiteral("killTask"));
        QVERIFY(kill && kill->isEnabled());
        // Keep it running for the screenshot; kill it at the end of that test.
        QVERIFY(!m_execAnswered);
    }

    void screenshotIsRenderedAndNotBlank() {
        // Some notifications for the list.
        const QString agentId = f.window->agentPane()->agentId();
        QCOMPARE(f.http
                     .post(url(QStringLiteral("/api/notify")),
                           {{QStringLiteral("agentId"), agentId},
                            {QStringLiteral("title"), QStringLiteral("Build finished")},
                            {QStringLiteral("message"), QStringLiteral("All 42 tests pass")}})
                     .status,
                 201);
        QTRY_COMPARE(f.session->notifications().rowCount(), 1);
        // Task labels, and one agent busy with a slow answer while the window is grabbed.
        const QStringList labels{QStringLiteral("Refactor the HTTP layer"),
                                 QStringLiteral("Review PR #42"),
                                 QStringLiteral("Survey WebSocket libraries")};
        for (int row = 0; row < 3; ++row)
            QCOMPARE(
                f.http
                    .patch(url(QStringLiteral("/api/agents/") + f.session->agents().agentIdAt(row)),
                           {{QStringLiteral("taskLabel"), labels[row]}})
                    .status,
                200);
        const QString busy = f.session->agents().agentIdAt(1);
        f.mock.queueSlow(QStringLiteral("A long review that takes its time."), 30000);
        QCOMPARE(f.http
                     .post(url(QStringLiteral("/api/agents/%1/message").arg(busy)),
                           {{QStringLiteral("message"), QStringLiteral("review PR 42")}})
                     .status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(str(f.session->agents().agent(busy), "status"),
                                  QStringLiteral("working"), 30000);
        QTRY_VERIFY(tableNames(table()).size() == 3 &&
                    table()->model()->index(2, AgentsModel::Task).data().toString() == labels[2]);
        f.window->statusBar()->clearMessage();
        f.session->agents().setContext(f.session->agents().agentIdAt(1), 160000, 200000);
        f.session->agents().setContext(f.session->agents().agentIdAt(2), 130000, 200000);
        QTest::qWait(200); // let the views paint the last updates

        const QPixmap shot = f.window->grab();
        QVERIFY(!shot.isNull());
        const QImage image = shot.toImage();
        QVERIFY(image.width() >= 800 && image.height() >= 500);
        const int colours = distinctColours(image);
        QVERIFY2(colours >= 16, qPrintable(QStringLiteral("%1 colours").arg(colours)));
        // Not uniform: the top-left pixel's colour covers well under 95 % of the samples.
        const QRgb first = image.pixel(image.width() / 2, image.height() / 2);
        int same = 0;
        int total = 0;
        for (int y = 0; y < image.height(); y += 5)
            for (int x = 0; x < image.width(); x += 5, ++total)
                same += image.pixel(x, y) == first;
        QVERIFY2(same < total * 95 / 100, qPrintable(QStringLiteral("%1/%2").arg(same).arg(total)));
        QVERIFY(QDir().mkpath(QStringLiteral(FLOTILLA_SCREENSHOT_DIR)));
        const QString path = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-main.png");
        QVERIFY(shot.save(path, "PNG"));
        qInfo("screenshot: %s (%d colours)", qPrintable(path), colours);

        // Now kill the task through the panel's button.
        auto *kill = f.window->findChild<QPushButton *>(QStringLiteral("killTask"));
        QVERIFY(kill->isEnabled());
        kill->click();
        QTRY_VERIFY_WITH_TIMEOUT(!kill->isEnabled(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m_execAnswered, 10000);
        QCOMPARE(m_execResult.value(QStringLiteral("killed")).toBool(), true);
    }

    void stopActionStopsTheSelectedAgent() {
        const QString busy = f.session->agents().agentIdAt(1);
        QCOMPARE(str(f.session->agents().agent(busy), "status"), QStringLiteral("working"));
        agentsView()->selectAgent(busy);
        QCOMPARE(agentsView()->selectedAgentIds(), QStringList{busy});
        QTest::keyClick(f.window.get(), Qt::Key_Period, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(
            str(f.session->agents().agent(busy), "status") != QStringLiteral("working"), 15000);
    }

    void focusAgentSelectsIt() {
        const QString target = f.session->agents().agentIdAt(2);
        QVERIFY(agentsView()->currentAgentId() != target);
        QCOMPARE(f.http
                     .post(url(QStringLiteral("/api/focus-agent")),
                           {{QStringLiteral("agentId"), target}})
                     .status,
                 200);
        QTRY_COMPARE(agentsView()->currentAgentId(), target);
        QTRY_COMPARE(f.window->agentPane()->agentId(), target);
    }

    void reconnectsAfterRestartAndKeepsSelection() {
        agentsView()->selectAgent(f.session->agents().agentIdAt(1));
        const QStringList before = agentsView()->selectedAgentIds();
        QCOMPARE(before.size(), 1);
        const quint16 port = f.service.port();
        QVERIFY(f.service.terminate());
        auto *state = f.window->findChild<ui::ConnectionStatusLabel *>();
        QTRY_COMPARE_WITH_TIMEOUT(state->property("connectionState").toString(),
                                  client::toString(client::ConnectionState::Reconnecting), 10000);
        QVERIFY(state->text().contains(QStringLiteral("Reconnecting")));
        QVERIFY2(f.startService(port), f.service.stdErr().constData());
        QTRY_COMPARE_WITH_TIMEOUT(state->property("connectionState").toString(),
                                  client::toString(client::ConnectionState::Connected), 15000);
        QTRY_COMPARE(table()->model()->rowCount(), 3);
        QCOMPARE(agentsView()->selectedAgentIds(), before);
        QCOMPARE(f.window->agentPane()->agentId(), agentsView()->currentAgentId());
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUi>(argc, argv, QStringLiteral("tst_monitor_ui"));
}

#include "tst_monitor_ui.moc"
