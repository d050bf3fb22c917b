// The monitor's window against a real flotillad (a child process on a free port, its agents the
// pinned Claude Code CLI talking to MockAnthropic in this process): the agents table follows the
// service, the filter and sorting work, actions reach the service, the connection state is
// visible across a service restart (selection kept), the connect dialog remembers services and
// tokens, and a screenshot of the window with streaming output is written and is not blank.
// Runs under Xvfb (see monitor_ui_tests.cmake); everything it writes lives in a temp HOME.

#include "core/MonitorSession.h"
#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/ServiceProcess.h"
#include "ui/AgentActions.h"
#include "ui/AgentPane.h"
#include "ui/AgentsProxy.h"
#include "ui/AgentsView.h"
#include "ui/BossPanel.h"
#include "ui/ConnectDialog.h"
#include "ui/ConnectionStatusLabel.h"
#include "ui/FileCredentialStore.h"
#include "ui/HistorySearchPanel.h"
#include "ui/MainWindow.h"
#include "ui/MessageComposer.h"
#include "ui/OutputView.h"
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
    QTemporaryDir m_tmp;
    MockAnthropic m_mock;
    ServiceProcess m_service;
    HttpClient m_http;
    QString m_cwd;
    std::unique_ptr<MonitorSession> m_session;
    std::unique_ptr<ui::FileCredentialStore> m_store;
    std::unique_ptr<ui::MainWindow> m_window;
    bool m_execAnswered = false;
    QJsonObject m_execResult;

    QUrl url(const QString &path) const { return localUrl(m_service.port(), path); }
    QUrl baseUrl() const { return localUrl(m_service.port(), {}); }

    QProcessEnvironment serviceEnv() const {
        // The agents' CLI inherits flotillad's environment: point it at the mock, in a temp HOME.
        const QString home = m_tmp.path() + QStringLiteral("/service-home");
        QProcessEnvironment env = m_mock.claudeEnvironment(home);
        env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
        env.remove(QStringLiteral("AUTH_TOKEN"));
        env.remove(QStringLiteral("FLOTILLA_PORT"));
        env.remove(QStringLiteral("QT_QPA_PLATFORM"));
        return env;
    }

    bool startService(quint16 port = 0) {
        QDir().mkpath(m_tmp.path() + QStringLiteral("/service-home"));
        QStringList args{QStringLiteral("--data-dir"), m_tmp.path() + QStringLiteral("/data"),
                         QStringLiteral("--claude-bin"), MockAnthropic::claudeBinary()};
        if (port != 0)
            args << QStringLiteral("--port") << QString::number(port);
        return m_service.start(args, serviceEnv());
    }

    QString createAgent(const QString &name, const QJsonObject &extra = {}) {
        QJsonObject body{{QStringLiteral("name"), name},
                         {QStringLiteral("cwd"), m_cwd},
                         {QStringLiteral("permissionMode"), QStringLiteral("auto")}};
        for (auto it = extra.begin(); it != extra.end(); ++it)
            body.insert(it.key(), it.value());
        const HttpResponse r = m_http.post(url(QStringLiteral("/api/agents")), body);
        return r.status == 201 ? str(r.object(), "id") : QString();
    }

    ui::AgentsView *agentsView() const { return m_window->agentsView(); }
    QTableView *table() const { return agentsView()->table(); }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_tmp.isValid());
        QVERIFY(m_mock.start());
        QVERIFY2(startService(), m_service.stdErr().constData());
        m_cwd = m_tmp.path() + QStringLiteral("/project");
        QVERIFY(QDir().mkpath(m_cwd));
        for (const char *name : {"alpha-builder", "beta-reviewer", "gamma-researcher"}) {
            const QString n = QLatin1String(name);
            QVERIFY(!createAgent(n, {{QStringLiteral("class"), n.section(QLatin1Char('-'), 1)}})
                         .isEmpty());
        }

        m_session = std::make_unique<MonitorSession>();
        m_session->client().setInitialBackoffMs(100);
        m_session->client().setMaxBackoffMs(400);
        m_store = std::make_unique<ui::FileCredentialStore>(m_tmp.path() +
                                                            QStringLiteral("/tokens.json"));
        m_window = std::make_unique<ui::MainWindow>(*m_session, *m_store);
        m_window->resize(1400, 860);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->connectTo({baseUrl(), {}});
    }

    void cleanupTestCase() {
        if (m_window)
            m_window->saveLayout();
        m_window.reset();
        m_session.reset();
        m_service.terminate();
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
        auto *state = m_window->findChild<ui::ConnectionStatusLabel *>();
        QVERIFY(state);
        QTRY_COMPARE(state->property("connectionState").toString(),
                     client::toString(client::ConnectionState::Connected));
        QVERIFY(state->text().contains(QStringLiteral("Connected")));
        auto *counts = m_window->findChild<QLabel *>(QStringLiteral("agentCounts"));
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
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        table()->setFocus();
        QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
        QTRY_VERIFY(agentsView()->filterEdit()->hasFocus());
        QTest::keyClick(m_window.get(), Qt::Key_L, Qt::ControlModifier);
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
        const QString id = createAgent(QStringLiteral("delta-remote"));
        QVERIFY(!id.isEmpty());
        QTRY_VERIFY(tableNames(table()).contains(QStringLiteral("delta-remote")));
        QCOMPARE(m_http.del(url(QStringLiteral("/api/agents/") + id)).status, 204);
        QTRY_VERIFY(!tableNames(table()).contains(QStringLiteral("delta-remote")));
        QCOMPARE(table()->model()->rowCount(), 3);
    }

    void deleteActionAsksAndDeletesTheSelection() {
        QVERIFY(!createAgent(QStringLiteral("epsilon-temp")).isEmpty());
        QVERIFY(!createAgent(QStringLiteral("zeta-temp")).isEmpty());
        QTRY_COMPARE(table()->model()->rowCount(), 5);
        // Multi-selection: both temp agents.
        agentsView()->filterEdit()->setText(QStringLiteral("-temp"));
        QCOMPARE(table()->model()->rowCount(), 2);
        table()->selectAll();
        QCOMPARE(agentsView()->selectedAgentIds().size(), 2);
        ui::AgentActions *actions = m_window->agentActions();
        QVERIFY(actions->deleteAgents->isEnabled());
        actions->deleteAgents->trigger();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = m_window->findChild<QMessageBox *>(QStringLiteral("confirmDelete"))));
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
        QCOMPARE(m_http.get(url(QStringLiteral("/api/agents"))).array().size(), 3);
    }

    void contextBarFollowsContextUpdates() {
        // A context_update of the agent shows in the bar's roles (the delegate paints them).
        const QString id = m_session->agents().agentIdAt(0);
        m_session->agents().setContext(id, 50000, 200000);
        const int row = m_session->agents().rowOf(id);
        const QModelIndex ctx = m_session->agents().index(row, AgentsModel::Context);
        QCOMPARE(ctx.data(AgentsModel::ContextFractionRole).toDouble(), 0.25);
    }

    void streamingOutputInTheAgentPane() {
        const QString id = m_session->agents().agentIdAt(0); // alpha-builder, the first created
        agentsView()->selectAgent(id);
        ui::AgentPane *pane = m_window->agentPane();
        QTRY_COMPARE(pane->agentId(), id);

        m_mock.queueToolUse(QStringLiteral("Bash"),
                            {{QStringLiteral("command"), QStringLiteral("echo monitor-tool-ok")},
                             {QStringLiteral("description"), QStringLiteral("say ok")}});
        QStringList lines;
        for (int i = 1; i <= 12; ++i)
            lines << QStringLiteral("Line %1 of the answer streamed to the monitor.").arg(i);
        m_mock.queueText(lines.join(QLatin1Char('\n')), 8);

        // Type and send with Ctrl+Enter, as a user would.
        ui::MessageComposer *composer = pane->composer();
        composer->editor()->setFocus();
        QTest::keyClicks(composer->editor(), QStringLiteral("run echo and summarise"));
        QTest::keyClick(composer->editor(), Qt::Key_Return, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(composer->text().isEmpty(), 10000);

        OutputModel &out = m_session->output(id);
        auto hasKind = [&out](int kind) {
            for (int row = 0; row < out.rowCount(); ++row)
                if (out.index(row).data(OutputModel::KindRole).toInt() == kind)
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hasKind(OutputEntry::ToolCall), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(hasKind(OutputEntry::ToolResult), 60000);
        auto hasText = [&out](const QString &text) {
            for (int row = 0; row < out.rowCount(); ++row)
                if (out.index(row).data().toString().contains(text))
                    return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(hasText(QStringLiteral("Line 12 of the answer")), 60000);
        QTRY_COMPARE_WITH_TIMEOUT(str(m_session->agents().agent(id), "status"),
                                  QStringLiteral("idle"), 60000);
        QCOMPARE(pane->outputView()->model(), &out);
        // Following the stream: the view sits at the bottom.
        QScrollBar *bar = pane->outputView()->verticalScrollBar();
        QTRY_VERIFY(bar->value() >= bar->maximum() - 2);
    }

    void historySearchShowsMatches() {
        ui::AgentPane *pane = m_window->agentPane();
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
        const QString agentId = m_window->agentPane()->agentId();
        // POST /api/exec answers when the command ends: fire it and watch the events.
        m_session->client().post(
            QStringLiteral("/api/exec"),
            {{QStringLiteral("agentId"), agentId},
             {QStringLiteral("command"),
              QStringLiteral("for i in 1 2 3 4 5; do echo task line $i; done; sleep 60")}},
            // Members, not locals: the answer comes after this test function returned.
            [this](const client::RestReply &r) {
                m_execAnswered = true;
                m_execResult = r.body.object();
            });
        ui::TasksPanel *tasks = m_window->tasksPanel();
        QTRY_COMPARE_WITH_TIMEOUT(tasks->list()->model()->rowCount(), 1, 10000);
        QTRY_VERIFY(!tasks->currentTaskId().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(
            tasks->outputView()->toPlainText().contains(QStringLiteral("task line 5")), 10000);
        auto *kill = m_window->findChild<QPushButton *>(QStringLiteral("killTask"));
        QVERIFY(kill && kill->isEnabled());
        // Keep it running for the screenshot; kill it at the end of that test.
        QVERIFY(!m_execAnswered);
    }

    void screenshotIsRenderedAndNotBlank() {
        // Some notifications for the list.
        const QString agentId = m_window->agentPane()->agentId();
        QCOMPARE(m_http
                     .post(url(QStringLiteral("/api/notify")),
                           {{QStringLiteral("agentId"), agentId},
                            {QStringLiteral("title"), QStringLiteral("Build finished")},
                            {QStringLiteral("message"), QStringLiteral("All 42 tests pass")}})
                     .status,
                 201);
        QTRY_COMPARE(m_session->notifications().rowCount(), 1);
        // Task labels, and one agent busy with a slow answer while the window is grabbed.
        const QStringList labels{QStringLiteral("Refactor the HTTP layer"),
                                 QStringLiteral("Review PR #42"),
                                 QStringLiteral("Survey WebSocket libraries")};
        for (int row = 0; row < 3; ++row)
            QCOMPARE(
                m_http
                    .patch(url(QStringLiteral("/api/agents/") + m_session->agents().agentIdAt(row)),
                           {{QStringLiteral("taskLabel"), labels[row]}})
                    .status,
                200);
        const QString busy = m_session->agents().agentIdAt(1);
        m_mock.queueSlow(QStringLiteral("A long review that takes its time."), 30000);
        QCOMPARE(m_http
                     .post(url(QStringLiteral("/api/agents/%1/message").arg(busy)),
                           {{QStringLiteral("message"), QStringLiteral("review PR 42")}})
                     .status,
                 200);
        QTRY_COMPARE_WITH_TIMEOUT(str(m_session->agents().agent(busy), "status"),
                                  QStringLiteral("working"), 30000);
        QTRY_VERIFY(tableNames(table()).size() == 3 &&
                    table()->model()->index(2, AgentsModel::Task).data().toString() == labels[2]);
        m_window->statusBar()->clearMessage();
        m_session->agents().setContext(m_session->agents().agentIdAt(1), 160000, 200000);
        m_session->agents().setContext(m_session->agents().agentIdAt(2), 130000, 200000);
        QTest::qWait(200); // let the views paint the last updates

        const QPixmap shot = m_window->grab();
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
        auto *kill = m_window->findChild<QPushButton *>(QStringLiteral("killTask"));
        QVERIFY(kill->isEnabled());
        kill->click();
        QTRY_VERIFY_WITH_TIMEOUT(!kill->isEnabled(), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(m_execAnswered, 10000);
        QCOMPARE(m_execResult.value(QStringLiteral("killed")).toBool(), true);
    }

    void stopActionStopsTheSelectedAgent() {
        const QString busy = m_session->agents().agentIdAt(1);
        QCOMPARE(str(m_session->agents().agent(busy), "status"), QStringLiteral("working"));
        agentsView()->selectAgent(busy);
        QCOMPARE(agentsView()->selectedAgentIds(), QStringList{busy});
        QTest::keyClick(m_window.get(), Qt::Key_Period, Qt::ControlModifier);
        QTRY_VERIFY_WITH_TIMEOUT(
            str(m_session->agents().agent(busy), "status") != QStringLiteral("working"), 15000);
    }

    void reconnectsAfterRestartAndKeepsSelection() {
        agentsView()->selectAgent(m_session->agents().agentIdAt(1));
        const QStringList before = agentsView()->selectedAgentIds();
        QCOMPARE(before.size(), 1);
        const quint16 port = m_service.port();
        QVERIFY(m_service.terminate());
        auto *state = m_window->findChild<ui::ConnectionStatusLabel *>();
        QTRY_COMPARE_WITH_TIMEOUT(state->property("connectionState").toString(),
                                  client::toString(client::ConnectionState::Reconnecting), 10000);
        QVERIFY(state->text().contains(QStringLiteral("Reconnecting")));
        QVERIFY2(startService(port), m_service.stdErr().constData());
        QTRY_COMPARE_WITH_TIMEOUT(state->property("connectionState").toString(),
                                  client::toString(client::ConnectionState::Connected), 15000);
        QTRY_COMPARE(table()->model()->rowCount(), 3);
        QCOMPARE(agentsView()->selectedAgentIds(), before);
        QCOMPARE(m_window->agentPane()->agentId(), agentsView()->currentAgentId());
    }

    void connectDialogRemembersServicesAndTokens() {
        ui::FileCredentialStore store(m_tmp.path() + QStringLiteral("/dialog-tokens.json"));
        {
            ui::ConnectDialog dialog(store);
            dialog.show();
            // The file store is not a keyring: the dialog says where tokens go.
            auto *warning = dialog.findChild<QLabel *>(QStringLiteral("keyringWarning"));
            QVERIFY(warning->isVisible());
            QVERIFY(warning->text().contains(QStringLiteral("dialog-tokens.json")));
            dialog.findChild<QLineEdit *>(QStringLiteral("serviceUrl"))
                ->setText(QStringLiteral("http://127.0.0.1:5999"));
            dialog.findChild<QLineEdit *>(QStringLiteral("serviceToken"))
                ->setText(QStringLiteral("s3cret-token"));
            dialog.accept();
            QCOMPARE(dialog.result(), int(QDialog::Accepted));
            QCOMPARE(dialog.endpoint().token, QByteArray("s3cret-token"));
        }
        QFile tokens(store.path());
        QVERIFY(tokens.exists());
        QCOMPARE(tokens.permissions() & (QFileDevice::ReadGroup | QFileDevice::ReadOther |
                                         QFileDevice::WriteGroup | QFileDevice::WriteOther),
                 QFileDevice::Permissions());
        const ui::ServiceProfiles profiles;
        QVERIFY(profiles.indexOf(QUrl(QStringLiteral("http://127.0.0.1:5999"))) >= 0);
        QCOMPARE(profiles.lastUsed(), QUrl(QStringLiteral("http://127.0.0.1:5999")));
        // Reopened: the last service is selected and its token read back from the store.
        ui::ConnectDialog again(store);
        auto *token = again.findChild<QLineEdit *>(QStringLiteral("serviceToken"));
        QTRY_COMPARE(token->text(), QStringLiteral("s3cret-token"));
        QCOMPARE(again.endpoint().baseUrl, QUrl(QStringLiteral("http://127.0.0.1:5999")));
        // A bad URL keeps the dialog open.
        again.findChild<QLineEdit *>(QStringLiteral("serviceUrl"))
            ->setText(QStringLiteral("ftp://x"));
        again.accept();
        QCOMPARE(again.result(), int(QDialog::Rejected));
    }

    void permissionDialogAnswers() {
        QJsonObject request{{QStringLiteral("id"), QStringLiteral("perm-1")},
                            {QStringLiteral("agentName"), QStringLiteral("alpha-builder")},
                            {QStringLiteral("tool"), QStringLiteral("Write")},
                            {QStringLiteral("toolInput"),
                             QJsonObject{{QStringLiteral("file_path"), QStringLiteral("/tmp/x")}}}};
        ui::PermissionDialog dialog(request);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        QCOMPARE(dialog.findChild<QLabel *>(QStringLiteral("permissionTool"))->text(),
                 QStringLiteral("Write"));
        QVERIFY(dialog.findChild<QPlainTextEdit *>(QStringLiteral("permissionInput"))
                    ->toPlainText()
                    .contains(QStringLiteral("/tmp/x")));
        QString answeredId;
        bool granted = false;
        connect(&dialog, &ui::PermissionDialog::answered, this, [&](const QString &id, bool g) {
            answeredId = id;
            granted = g;
        });
        dialog.show();
        dialog.findChild<QPushButton *>(QStringLiteral("grantButton"))->click();
        QCOMPARE(answeredId, QStringLiteral("perm-1"));
        QVERIFY(granted);
    }

    void shortcutsDialogListsTheActions() {
        ui::ShortcutsDialog dialog(m_window->allActions());
        auto *tableWidget = dialog.findChild<QTableWidget *>(QStringLiteral("shortcutsTable"));
        QStringList rows;
        for (int r = 0; r < tableWidget->rowCount(); ++r)
            rows << tableWidget->item(r, 0)->text() + QLatin1Char('=') +
                        tableWidget->item(r, 1)->text();
        const QString all = rows.join(QLatin1Char('\n'));
        QVERIFY2(all.contains(QStringLiteral("New agent=Ctrl+N")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Delete agents=Del")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Stop agents=Ctrl+.")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Reconnect=F5")), qPrintable(all));
        QVERIFY2(all.contains(QStringLiteral("Message box=Ctrl+L")), qPrintable(all));
    }

    void layoutIsRemembered() {
        m_window->saveLayout();
        QSettings s;
        QVERIFY(!s.value(QStringLiteral("window/geometry")).toByteArray().isEmpty());
        QVERIFY(!s.value(QStringLiteral("window/state")).toByteArray().isEmpty());
        QVERIFY(!s.value(QStringLiteral("window/splitter")).toByteArray().isEmpty());
        // The settings live in the temp HOME, never in the real one.
        QVERIFY(s.fileName().startsWith(QDir::homePath()));
        QVERIFY(QDir::homePath().startsWith(QDir::tempPath()));
    }
};

// A temp HOME and XDG dirs before QApplication reads them: QSettings, the token file and the
// window layout never touch the real user's files.
int main(int argc, char *argv[]) {
    QTemporaryDir home;
    if (!home.isValid())
        return 1;
    const QByteArray h = home.path().toUtf8();
    qputenv("HOME", h);
    qputenv("XDG_CONFIG_HOME", h + "/config");
    qputenv("XDG_DATA_HOME", h + "/data");
    qputenv("XDG_CACHE_HOME", h + "/cache");
    QDir().mkpath(home.path() + QStringLiteral("/runtime"));
    QFile::setPermissions(home.path() + QStringLiteral("/runtime"),
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    qputenv("XDG_RUNTIME_DIR", h + "/runtime");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("flotilla-test"));
    QApplication::setApplicationName(QStringLiteral("tst_monitor_ui"));
    TestMonitorUi tc;
    return QTest::qExec(&tc, argc, argv);
}

#include "tst_monitor_ui.moc"
