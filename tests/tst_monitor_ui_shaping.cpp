// What shapes agents, in the monitor: the Library window's tabs (classes, skills, saved prompts,
// hooks, buildings) against the real flotillad (child process) and the real Claude Code CLI on
// MockAnthropic, under Xvfb. Each tab lists what the service holds and follows its events; a
// class made in the dialog with a PNG icon shows in the list, in the new-agent dialog and beside
// the agent; a refused delete shows the service's code and who uses the class; a skill's
// markdown is previewed; a prompt picked in the message box fills it; a hook's failing run is
// red; a building started from the tab streams its log. Screenshots go to FLOTILLA_SCREENSHOT_DIR.

#include "core/ArgvText.h"
#include "core/ShapingCatalog.h"
#include "protocol/ShapingNames.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentActions.h"
#include "ui/AgentPane.h"
#include "ui/BuildingsTab.h"
#include "ui/ClassDialog.h"
#include "ui/ClassesTab.h"
#include "ui/HooksTab.h"
#include "ui/LibraryWindow.h"
#include "ui/MessageComposer.h"
#include "ui/NewAgentDialog.h"
#include "ui/PromptsTab.h"
#include "ui/SkillsTab.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace sk = ::flotilla::wire::shaping::key;

namespace {
QStringList rowTexts(const QAbstractItemModel *model) {
    QStringList out;
    for (int row = 0; row < model->rowCount(); ++row)
        out << model->index(row, 0).data().toString();
    return out;
}

bool anyRowContains(const QAbstractItemModel *model, const QString &text) {
    const QStringList rows = rowTexts(model);
    return std::any_of(rows.begin(), rows.end(),
                       [&](const QString &r) { return r.contains(text); });
}

int rowContaining(const QAbstractItemModel *model, const QString &text) {
    const QStringList rows = rowTexts(model);
    for (int row = 0; row < rows.size(); ++row)
        if (rows[row].contains(text))
            return row;
    return -1;
}

// The colour in the middle of an icon or pixmap.
QColor centre(const QPixmap &pix) {
    const QImage image = pix.toImage();
    return image.pixelColor(image.width() / 2, image.height() / 2);
}

const QColor kIconRed(220, 20, 60);

QStringList words(std::initializer_list<const char *> list) {
    QStringList out;
    for (const char *w : list)
        out << QString::fromUtf8(w);
    return out;
}

void confirm(QWidget *parent) {
    QMessageBox *box = nullptr;
    QTRY_VERIFY((box = parent->findChild<QMessageBox *>(QStringLiteral("confirmDelete"))));
    box->findChild<QPushButton *>(QStringLiteral("confirmDeleteButton"))->click();
}
} // namespace

class TestMonitorUiShaping final : public QObject {
    Q_OBJECT

    MonitorUiFixture f;
    QString agent;   // "shaper"
    QString another; // "bystander"

    ui::LibraryWindow *lib() { return f.window->library(); }
    QString agentNamed(const QString &name) const {
        const AgentsModel &agents = f.session->agents();
        for (const QString &id : agents.agentIds())
            if (agents.agent(id).value(QStringLiteral("name")).toString() == name)
                return id;
        return {};
    }
    HttpResponse post(const QString &path, const QJsonObject &body) {
        return f.http.post(f.url(path), body);
    }
    void shot(QWidget *w, const QString &name) {
        QTest::qWait(150); // let the window paint before the grab
        QVERIFY(QDir().mkpath(QStringLiteral(FLOTILLA_SCREENSHOT_DIR)));
        QVERIFY(w->grab().save(QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/") + name, "PNG"));
    }
    void showTab(QWidget *tab) {
        f.window->showLibrary();
        QVERIFY(QTest::qWaitForWindowExposed(lib()));
        lib()->tabs()->setCurrentWidget(tab);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY(f.openWindow());
        agent = f.createAgent(QStringLiteral("shaper"));
        another = f.createAgent(QStringLiteral("bystander"));
        QVERIFY(!agent.isEmpty() && !another.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(f.session->agents().rowOf(another) >= 0, 10000);
    }
    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    // A hook's or building's command typed as one line: split as a shell splits words, without
    // expansion; joined back, it splits to the same argv.
    void commandLinesSplitLikeAShell_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QStringList>("argv");
        QTest::newRow("plain") << QStringLiteral("  make  -j2 ") << words({"make", "-j2"});
        QTest::newRow("single") << QStringLiteral("sh -c 'echo $HOME; exit 3'")
                                << words({"sh", "-c", "echo $HOME; exit 3"});
        QTest::newRow("double") << QStringLiteral("echo \"a \\\"b\\\" \\$x\" c\\ d")
                                << words({"echo", "a \"b\" $x", "c d"});
        QTest::newRow("empty word") << QStringLiteral("printf '' x") << words({"printf", "", "x"});
        QTest::newRow("glued") << QStringLiteral("--name='a b'c") << words({"--name=a bc"});
    }
    void commandLinesSplitLikeAShell() {
        QFETCH(QString, line);
        QFETCH(QStringList, argv);
        QCOMPARE(splitCommandLine(line), std::optional<QStringList>(argv));
        QCOMPARE(splitCommandLine(joinCommandLine(argv)), std::optional<QStringList>(argv));
        QVERIFY(!splitCommandLine(QStringLiteral("echo 'open")));
        QVERIFY(!splitCommandLine(QStringLiteral("echo \"open")));
        QVERIFY(!splitCommandLine(QStringLiteral("trailing\\")));
        QCOMPARE(splitArgumentLines(QStringLiteral("sh\n-c\n\necho a b\r\n")),
                 (words({"sh", "-c", "echo a b"})));
    }

    // Ctrl+Shift+L opens the Library; its classes are the service's, built-in ones first; a class
    // another client makes or deletes comes and goes by itself.
    void classesAreListedAndFollowed() {
        QCOMPARE(post(QStringLiteral("/api/classes"),
                      {{sk::Slug, QStringLiteral("reviewer")},
                       {QStringLiteral("name"), QStringLiteral("Reviewer")}})
                     .status,
                 201);
        f.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(f.window.get()));
        QTest::keyClick(f.window.get(), Qt::Key_L, Qt::ControlModifier | Qt::ShiftModifier);
        QTRY_VERIFY(lib()->isVisible());
        const QAbstractItemModel *classes = lib()->classesTab()->list()->model();
        QTRY_VERIFY(anyRowContains(classes, QStringLiteral("Reviewer (reviewer)")));
        QVERIFY(rowTexts(classes).at(0).contains(QStringLiteral("builder")));
        QVERIFY(anyRowContains(classes, QStringLiteral("boss")));
        QCOMPARE(
            post(QStringLiteral("/api/classes"), {{sk::Slug, QStringLiteral("tester")}}).status,
            201);
        QTRY_VERIFY(anyRowContains(classes, QStringLiteral("tester")));
        QCOMPARE(f.http.del(f.url(QStringLiteral("/api/classes/tester"))).status, 204);
        QTRY_VERIFY(!anyRowContains(classes, QStringLiteral("tester")));
    }

    // A class an agent uses is not deleted: the tab shows the code and the agent's name.
    void aRefusedDeleteShowsWhoUsesTheClass() {
        QVERIFY(!f.createAgent(QStringLiteral("critic"),
                               {{QStringLiteral("class"), QStringLiteral("reviewer")}})
                     .isEmpty());
        ui::ClassesTab *tab = lib()->classesTab();
        showTab(tab);
        tab->selectSlug(QStringLiteral("reviewer"));
        tab->findChild<QPushButton *>(QStringLiteral("deleteClassButton"))->click();
        confirm(tab);
        auto *error = tab->findChild<QLabel *>(QStringLiteral("classesError"));
        QTRY_VERIFY(error->isVisible());
        QVERIFY2(error->text().contains(QLatin1String(wire::shaping::code::ClassInUse)) &&
                     error->text().contains(QStringLiteral("critic")),
                 qPrintable(error->text()));
        QVERIFY(anyRowContains(tab->list()->model(), QStringLiteral("reviewer")));
        // Built-in classes cannot be deleted: the button says so before the service does.
        tab->selectSlug(QStringLiteral("builder"));
        QVERIFY(!tab->findChild<QPushButton *>(QStringLiteral("deleteClassButton"))->isEnabled());
    }

    // Skills: listed, previewed as markdown, made in the editor, and a change by another client
    // shows in the list.
    void skillsAreListedPreviewedAndMade() {
        QCOMPARE(post(QStringLiteral("/api/skills"),
                      {{sk::Slug, QStringLiteral("checklist")},
                       {sk::Description, QStringLiteral("Review against the checklist")},
                       {sk::Content, QStringLiteral("# Checklist\n\n- **tests** pass\n")}})
                     .status,
                 201);
        ui::SkillsTab *tab = lib()->skillsTab();
        showTab(tab);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("checklist")));
        tab->selectSlug(QStringLiteral("checklist"));
        QTRY_VERIFY(tab->preview()->toPlainText().contains(QStringLiteral("Checklist")));
        QVERIFY(!tab->preview()->toHtml().contains(QStringLiteral("**tests**")));

        tab->findChild<QPushButton *>(QStringLiteral("newSkillButton"))->click();
        tab->findChild<QLineEdit *>(QStringLiteral("skillSlug"))->setText(QStringLiteral("lint"));
        tab->findChild<QLineEdit *>(QStringLiteral("skillDescription"))
            ->setText(QStringLiteral("Run the linters"));
        tab->findChild<QPlainTextEdit *>(QStringLiteral("skillContent"))
            ->setPlainText(QStringLiteral("Run `scripts/lint.sh`."));
        tab->findChild<QPushButton *>(QStringLiteral("saveSkillButton"))->click();
        QTRY_COMPARE(f.http.get(f.url(QStringLiteral("/api/skills/lint"))).status, 200);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("lint: Run the linters")));

        QCOMPARE(
            f.http.patch(f.url(QStringLiteral("/api/skills/lint")), {{sk::Enabled, false}}).status,
            200);
        QTRY_VERIFY(anyRowContains(tab->list()->model(),
                                   QStringLiteral("lint: Run the linters (disabled)")));
        // The editor shows the change too (nothing was being edited there).
        QTRY_VERIFY(!tab->findChild<QCheckBox *>(QStringLiteral("skillEnabled"))->isChecked());
        shot(lib(), QStringLiteral("monitor-library-skills.png"));
    }

    // A class made in the dialog, with a PNG icon: in the list with that icon, offered with it in
    // the new-agent dialog, and beside an agent created there with a skill and instructions.
    void aClassWithAnIconIsMadeAndUsed() {
        const QString png = f.tmp.path() + QStringLiteral("/painter.png");
        QImage image(32, 32, QImage::Format_ARGB32);
        image.fill(kIconRed);
        QVERIFY(image.save(png, "PNG"));
        const QString notAnIcon = f.tmp.path() + QStringLiteral("/notes.txt");
        QFile text(notAnIcon);
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("just words\n");
        text.close();

        ui::ClassesTab *tab = lib()->classesTab();
        showTab(tab);
        tab->findChild<QPushButton *>(QStringLiteral("newClassButton"))->click();
        ui::ClassDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = tab->findChild<ui::ClassDialog *>()));
        dialog->findChild<QLineEdit *>(QStringLiteral("classSlug"))
            ->setText(QStringLiteral("painter"));
        dialog->findChild<QLineEdit *>(QStringLiteral("className"))
            ->setText(QStringLiteral("Painter"));
        dialog->findChild<QPlainTextEdit *>(QStringLiteral("classInstructions"))
            ->setPlainText(QStringLiteral("Paint the UI."));
        QVERIFY(!dialog->setIconFile(notAnIcon));
        QVERIFY(dialog->findChild<QLabel *>(QStringLiteral("classError"))->isVisible());
        QVERIFY(dialog->setIconFile(png));
        QCOMPARE(dialog->body().value(sk::Icon).toObject().value(sk::MediaType).toString(),
                 QStringLiteral("image/png"));
        shot(dialog, QStringLiteral("monitor-class-dialog.png"));
        dialog->findChild<QPushButton *>(QStringLiteral("classSave"))->click();
        QTRY_VERIFY(!tab->findChild<ui::ClassDialog *>());
        const QAbstractItemModel *classes = tab->list()->model();
        const QModelIndex painter =
            classes->index(rowContaining(classes, QStringLiteral("(painter)")), 0);
        QVERIFY(painter.isValid());
        QTRY_COMPARE(centre(painter.data(Qt::DecorationRole).value<QIcon>().pixmap(32)), kIconRed);
        QCOMPARE(
            f.http.get(f.url(QStringLiteral("/api/classes/painter"))).object().value(sk::HasIcon),
            QJsonValue(true));
        shot(lib(), QStringLiteral("monitor-library-classes.png"));

        // The new-agent dialog offers it with its icon, and the enabled skills.
        f.window->agentActions()->newAgent->trigger();
        ui::NewAgentDialog *create = nullptr;
        QTRY_VERIFY((create = f.window->findChild<ui::NewAgentDialog *>()));
        auto *cls = create->findChild<QComboBox *>(QStringLiteral("agentClass"));
        QTRY_VERIFY(cls->findText(QStringLiteral("painter")) >= 0);
        const int at = cls->findText(QStringLiteral("painter"));
        QTRY_COMPARE(centre(cls->itemIcon(cls->findText(QStringLiteral("painter"))).pixmap(16)),
                     kIconRed);
        auto *skills = create->findChild<QListWidget *>(QStringLiteral("agentSkills"));
        QTRY_COMPARE(skills->count(), 1); // "lint" is disabled
        QCOMPARE(skills->item(0)->text(), QStringLiteral("checklist"));
        create->findChild<QLineEdit *>(QStringLiteral("agentName"))
            ->setText(QStringLiteral("artist"));
        create->findChild<QLineEdit *>(QStringLiteral("agentCwd"))->setText(f.cwd);
        cls->setCurrentIndex(at);
        skills->item(0)->setCheckState(Qt::Checked);
        create->findChild<QPlainTextEdit *>(QStringLiteral("agentInstructions"))
            ->setPlainText(QStringLiteral("Prefer muted colours."));
        shot(create, QStringLiteral("monitor-new-agent-shaped.png"));
        create->accept();
        QTRY_VERIFY_WITH_TIMEOUT(!f.window->findChild<ui::NewAgentDialog *>(), 10000);

        // The agent has them, and its header shows the icon and the skill.
        QString artist;
        QTRY_VERIFY(!(artist = agentNamed(QStringLiteral("artist"))).isEmpty());
        const QJsonObject a = f.http.get(f.url(QStringLiteral("/api/agents/") + artist)).object();
        QCOMPARE(a.value(QStringLiteral("class")).toString(), QStringLiteral("painter"));
        QCOMPARE(a.value(sk::Skills).toArray(), QJsonArray{QStringLiteral("checklist")});
        QCOMPARE(a.value(sk::CustomInstructions).toString(),
                 QStringLiteral("Prefer muted colours."));
        f.agentsView()->selectAgent(artist);
        ui::AgentPane *pane = f.window->agentPane();
        QTRY_COMPARE(pane->agentId(), artist);
        QTRY_COMPARE(centre(pane->classIconLabel()->pixmap()), kIconRed);
        QVERIFY(pane->skillsLabel()->text().contains(QStringLiteral("checklist")));
    }

    // Saved prompts: listed and made in the tab; the message box offers those for the agent and
    // a pick fills the box for editing (nothing is sent).
    void aPromptPickedInTheComposerFillsTheBox() {
        QCOMPARE(post(QStringLiteral("/api/prompts"),
                      {{QStringLiteral("name"), QStringLiteral("daily")},
                       {sk::Text, QStringLiteral("Summarise today's work.")}})
                     .status,
                 201);
        QCOMPARE(post(QStringLiteral("/api/prompts"),
                      {{QStringLiteral("name"), QStringLiteral("not yours")},
                       {sk::Text, QStringLiteral("x")},
                       {sk::Scope, QJsonObject{{QStringLiteral("agentId"), another}}}})
                     .status,
                 201);
        ui::PromptsTab *tab = lib()->promptsTab();
        showTab(tab);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("daily - for everyone")));
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("not yours - for agent")));

        // One made in the tab for this agent.
        tab->findChild<QPushButton *>(QStringLiteral("newPromptButton"))->click();
        tab->findChild<QLineEdit *>(QStringLiteral("promptName"))->setText(QStringLiteral("mine"));
        tab->findChild<QPlainTextEdit *>(QStringLiteral("promptText"))
            ->setPlainText(QStringLiteral("Run the tests, then report."));
        auto *scope = tab->findChild<QComboBox *>(QStringLiteral("promptScope"));
        scope->setCurrentIndex(2); // one agent
        auto *target = tab->findChild<QComboBox *>(QStringLiteral("promptTarget"));
        target->setCurrentIndex(target->findData(agent));
        tab->findChild<QPushButton *>(QStringLiteral("savePromptButton"))->click();
        QTRY_VERIFY(
            anyRowContains(tab->list()->model(), QStringLiteral("mine - for agent shaper")));

        f.agentsView()->selectAgent(agent);
        ui::MessageComposer *composer = f.window->agentPane()->composer();
        auto names = [composer] {
            QStringList out;
            for (QAction *a : composer->promptsMenu()->actions())
                out << a->text();
            return out;
        };
        QTRY_COMPARE(names(), (QStringList{QStringLiteral("daily"), QStringLiteral("mine")}));
        QVERIFY(composer->promptsButton()->isEnabled());
        composer->setText(QStringLiteral("draft"));
        const int requests = f.mock.requestCount();
        composer->promptsMenu()->actions().at(1)->trigger();
        QCOMPARE(composer->text(), QStringLiteral("Run the tests, then report."));
        QTest::qWait(200); // long enough for a send to have reached the model: none did
        QCOMPARE(f.mock.requestCount(), requests);
        shot(f.window.get(), QStringLiteral("monitor-agent-shaped.png"));
    }

    // Hooks: listed; a run that fails (exit 3 on turn_finished) arrives as hook_run, red in the
    // runs table and in the list; a hook made in the tab keeps its quoted argv.
    void aFailingHookRunIsRed() {
        const HttpResponse made =
            post(QStringLiteral("/api/hooks"),
                 {{QStringLiteral("name"), QStringLiteral("notify")},
                  {sk::Event, QStringLiteral("turn_finished")},
                  {sk::Filter, QJsonObject{{QStringLiteral("agentId"), agent}}},
                  {sk::Command, QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                           QStringLiteral("echo hook said hi; exit 3")}}});
        QCOMPARE(made.status, 201);
        const QString hookId = made.object().value(QStringLiteral("id")).toString();
        ui::HooksTab *tab = lib()->hooksTab();
        showTab(tab);
        QTRY_VERIFY(
            anyRowContains(tab->list()->model(), QStringLiteral("notify - on turn_finished")));
        tab->selectHook(hookId);
        QCOMPARE(tab->findChild<QPlainTextEdit *>(QStringLiteral("hookCommand"))->toPlainText(),
                 QStringLiteral("sh -c 'echo hook said hi; exit 3'"));

        f.mock.queueText(QStringLiteral("Done."));
        QCOMPARE(f.sendMessage(agent, QStringLiteral("go")).status, 200);
        QTRY_COMPARE_WITH_TIMEOUT(tab->runs()->rowCount(), 1, 60000);
        QVERIFY2(tab->runs()->item(0, 3)->text().contains(QStringLiteral("exit 3")),
                 qPrintable(tab->runs()->item(0, 3)->text()));
        QCOMPARE(tab->runs()->item(0, 0)->foreground().color(), QColor(0xb0, 0x00, 0x20));
        tab->runs()->setCurrentCell(0, 0);
        QVERIFY(tab->findChild<QPlainTextEdit *>(QStringLiteral("hookRunOutput"))
                    ->toPlainText()
                    .contains(QStringLiteral("hook said hi")));
        const QAbstractItemModel *hooks = tab->list()->model();
        const QModelIndex row = hooks->index(rowContaining(hooks, QStringLiteral("notify")), 0);
        QTRY_COMPARE(row.data(Qt::ForegroundRole).value<QColor>(), QColor(0xb0, 0x00, 0x20));
        shot(lib(), QStringLiteral("monitor-library-hooks.png"));

        tab->findChild<QPushButton *>(QStringLiteral("newHookButton"))->click();
        tab->findChild<QLineEdit *>(QStringLiteral("hookName"))->setText(QStringLiteral("log"));
        tab->findChild<QPlainTextEdit *>(QStringLiteral("hookCommand"))
            ->setPlainText(QStringLiteral("printf '%s\\n' \"a \\\"b\\\"\" 'c d'"));
        tab->findChild<QPushButton *>(QStringLiteral("saveHookButton"))->click();
        QTRY_VERIFY(anyRowContains(hooks, QStringLiteral("log - on turn_finished")));
        const QJsonArray hooksNow = f.http.get(f.url(QStringLiteral("/api/hooks"))).array();
        QCOMPARE(hooksNow.last().toObject().value(sk::Command).toArray(),
                 (QJsonArray{QStringLiteral("printf"), QStringLiteral("%s\\n"),
                             QStringLiteral("a \"b\""), QStringLiteral("c d")}));
    }

    // Buildings: listed with their state; started from the tab, its pid and log follow; stopped
    // from the tab; shown again, the log is the service's tail.
    void aBuildingStartedFromTheTabStreamsItsLog() {
        const HttpResponse made = post(
            QStringLiteral("/api/buildings"),
            {{QStringLiteral("name"), QStringLiteral("ticker")},
             {QStringLiteral("cwd"), f.cwd},
             {sk::Url, QStringLiteral("http://127.0.0.1:9/")},
             {sk::Command, QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                      QStringLiteral("echo first line; echo oops >&2; "
                                                     "while :; do echo tick; sleep 0.3; done")}}});
        QCOMPARE(made.status, 201);
        const QString id = made.object().value(QStringLiteral("id")).toString();
        ui::BuildingsTab *tab = lib()->buildingsTab();
        showTab(tab);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("ticker [stopped")));
        tab->selectBuilding(id);
        QTRY_COMPARE(tab->currentId(), id);
        QVERIFY(tab->findChild<QLabel *>(QStringLiteral("buildingUrl"))
                    ->text()
                    .contains(QStringLiteral("href=\"http://127.0.0.1:9/\"")));
        tab->findChild<QPushButton *>(QStringLiteral("startBuildingButton"))->click();
        auto *state = tab->findChild<QLabel *>(QStringLiteral("buildingState"));
        QTRY_VERIFY_WITH_TIMEOUT(state->text().startsWith(QStringLiteral("running")), 15000);
        QTRY_VERIFY(tab->findChild<QLabel *>(QStringLiteral("buildingPid"))->text().toInt() > 0);
        QTRY_VERIFY_WITH_TIMEOUT(tab->log()->toPlainText().contains(QStringLiteral("first line")),
                                 15000);
        QTRY_VERIFY_WITH_TIMEOUT(tab->log()->toPlainText().count(QStringLiteral("tick")) >= 3,
                                 15000);
        QVERIFY(tab->log()->toPlainText().contains(QStringLiteral("oops")));
        shot(lib(), QStringLiteral("monitor-library-buildings.png"));

        tab->findChild<QPushButton *>(QStringLiteral("stopBuildingButton"))->click();
        QTRY_VERIFY_WITH_TIMEOUT(!state->text().startsWith(QStringLiteral("running")), 20000);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("ticker [stopped")));

        // Away and back: the log comes from GET .../logs?tail=500.
        QCOMPARE(post(QStringLiteral("/api/buildings"),
                      {{QStringLiteral("name"), QStringLiteral("other")},
                       {sk::Command, QJsonArray{QStringLiteral("true")}},
                       {QStringLiteral("cwd"), f.cwd}})
                     .status,
                 201);
        QTRY_VERIFY(anyRowContains(tab->list()->model(), QStringLiteral("other [")));
        const QString other = f.http.get(f.url(QStringLiteral("/api/buildings")))
                                  .array()
                                  .last()
                                  .toObject()
                                  .value(QStringLiteral("id"))
                                  .toString();
        tab->selectBuilding(other);
        QTRY_COMPARE(tab->currentId(), other);
        QTRY_COMPARE(tab->log()->toPlainText(), QString());
        tab->selectBuilding(id);
        QTRY_VERIFY(tab->log()->toPlainText().contains(QStringLiteral("first line\n")));
        QVERIFY(tab->log()->toPlainText().contains(QStringLiteral("oops\n")));
        QCOMPARE(f.http.del(f.url(QStringLiteral("/api/buildings/") + other)).status, 204);
        QTRY_VERIFY(!anyRowContains(tab->list()->model(), QStringLiteral("other [")));
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiShaping>(argc, argv, QStringLiteral("tst_monitor_ui_shaping"));
}

#include "tst_monitor_ui_shaping.moc"
