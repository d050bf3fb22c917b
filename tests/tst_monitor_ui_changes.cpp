// The Changes tab and the usage line with agents at work: the real
// flotillad (child process) on a real git repository the test makes, agents with worktrees, the
// real Claude Code CLI against MockAnthropic, the monitor's window under Xvfb. A turn's edit
// appears in the Changes tab by itself (worktree_diff_changed), as a file list and a coloured
// diff; a comment on a line goes out as a review and reaches the model; a merge that conflicts
// is reported inline with both checkouts untouched; a squash merge lands in the main checkout.
// The window remembers the selected agent. A screenshot goes to FLOTILLA_SCREENSHOT_DIR.

#include "support/GitRepo.h"
#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentPane.h"
#include "ui/ChangesPanel.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTextBlock>
#include <QTextEdit>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace {

QStringList itemTexts(const QListWidget *list) {
    QStringList out;
    for (int i = 0; i < list->count(); ++i)
        out << list->item(i)->text();
    return out;
}

// The diff view's block whose text ends with `tail` (line numbers come first).
QTextBlock blockEndingWith(const QTextDocument *doc, const QString &tail) {
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        if (b.text().endsWith(tail))
            return b;
    return {};
}

QPushButton *buttonLabelled(QWidget *parent, const QString &prefix) {
    const auto buttons = parent->findChildren<QPushButton *>();
    for (QPushButton *b : buttons)
        if (b->text().remove(QLatin1Char('&')).startsWith(prefix))
            return b;
    return nullptr;
}

} // namespace

class TestMonitorUiChanges final : public QObject {
    Q_OBJECT

private:
    MonitorUiFixture f;
    std::unique_ptr<GitRepo> repo;
    QString alpha;
    QString beta;

    ui::AgentPane *pane() const { return f.window->agentPane(); }
    ui::ChangesPanel *changes() const { return pane()->changesPanel(); }
    QString worktreePath(const QString &id) const {
        return f.session->agents()
            .agent(id)
            .value(QStringLiteral("worktree"))
            .toObject()
            .value(QStringLiteral("path"))
            .toString();
    }
    int taskCount(const QString &id) const {
        return f.session->agents().agent(id).value(QStringLiteral("taskCount")).toInt();
    }
    void select(const QString &id) {
        f.agentsView()->selectAgent(id);
        QTRY_COMPARE(pane()->agentId(), id);
        pane()->showChanges();
        QTRY_VERIFY(changes()->isVisible());
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("HOME"), f.tmp.path() + QStringLiteral("/git-home"));
        env.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
        f.cwd = QDir(f.cwd).canonicalPath();
        repo = std::make_unique<GitRepo>(f.cwd, env);
        QVERIFY(repo->init({{QStringLiteral("shared.txt"), "one\ntwo\nthree\n"}}));
        QVERIFY(f.openWindow());
        f.mock.setUsage(1200, 300, 500);
        alpha = f.createAgent(QStringLiteral("alpha"), {{QStringLiteral("worktree"), true}});
        beta = f.createAgent(QStringLiteral("beta"), {{QStringLiteral("worktree"), true}});
        QVERIFY(!alpha.isEmpty() && !beta.isEmpty());
        QTRY_VERIFY(!worktreePath(alpha).isEmpty() && !worktreePath(beta).isEmpty());
    }
    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    void noWorktreeSaysSo() {
        const QString plain = f.createAgent(QStringLiteral("plain"));
        QVERIFY(!plain.isEmpty());
        QTRY_VERIFY(f.session->agents().rowOf(plain) >= 0);
        select(plain);
        QVERIFY(changes()->summaryLabel()->text().contains(QStringLiteral("without a worktree")));
        QVERIFY(!buttonLabelled(changes(), QStringLiteral("Merge"))->isEnabled());
        QCOMPARE(changes()->fileList()->count(), 0);
    }

    // The agent edits shared.txt in a turn; the tab follows worktree_diff_changed by itself.
    void aTurnsEditShowsAsAColouredDiff() {
        select(alpha);
        QTRY_VERIFY(changes()->summaryLabel()->text().contains(QStringLiteral("no changes")));
        const QString file = worktreePath(alpha) + QStringLiteral("/shared.txt");
        f.mock.queueToolUse(QStringLiteral("Read"), {{QStringLiteral("file_path"), file}});
        f.mock.queueToolUse(QStringLiteral("Edit"),
                            {{QStringLiteral("file_path"), file},
                             {QStringLiteral("old_string"), QStringLiteral("two\n")},
                             {QStringLiteral("new_string"), QStringLiteral("two (alpha)\n")}});
        f.mock.queueText(QStringLiteral("Edited."));
        QCOMPARE(f.sendMessage(alpha, QStringLiteral("edit shared.txt")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(taskCount(alpha) == 1, 60000);
        QTRY_COMPARE_WITH_TIMEOUT(changes()->fileList()->count(), 2, 15000);
        QCOMPARE(GitRepo::read(file), QByteArray("one\ntwo (alpha)\nthree\n"));
        const QStringList files = itemTexts(changes()->fileList());
        QCOMPARE(files.at(0), QStringLiteral("All files (1)"));
        QCOMPARE(files.at(1), QStringLiteral("M  shared.txt  +1 \u22121"));
        QVERIFY2(changes()->summaryLabel()->text().contains(QStringLiteral("flotilla/alpha")),
                 qPrintable(changes()->summaryLabel()->text()));
        // The main checkout is untouched: the edit is the worktree's only.
        QCOMPARE(GitRepo::read(f.cwd + QStringLiteral("/shared.txt")),
                 QByteArray("one\ntwo\nthree\n"));

        changes()->fileList()->setCurrentRow(1);
        const QTextDocument *doc = changes()->diffView()->document();
        const QTextBlock added = blockEndingWith(doc, QStringLiteral("+ two (alpha)"));
        const QTextBlock removed = blockEndingWith(doc, QStringLiteral("- two"));
        QVERIFY(added.isValid() && removed.isValid());
        QVERIFY2(added.text().trimmed().startsWith(QStringLiteral("2 ")), qPrintable(added.text()));
        const QColor a = added.blockFormat().background().color();
        const QColor r = removed.blockFormat().background().color();
        QVERIFY2(a.green() > a.red(), qPrintable(a.name()));
        QVERIFY2(r.red() > r.green(), qPrintable(r.name()));

        // Usage of that turn (the mock's scripted usage) in the header and the table.
        const auto usage = pane()->findChild<QLabel *>(QStringLiteral("agentUsage"));
        QTRY_VERIFY2(usage->text().contains(QStringLiteral("turn(s)")), qPrintable(usage->text()));
        const int row = f.session->agents().rowOf(alpha);
        QTRY_VERIFY(
            !f.session->agents().index(row, AgentsModel::Usage).data().toString().isEmpty());
    }

    // A comment on the added line goes out as a review: the agent's next message.
    void aLineCommentIsSentAsAReview() {
        select(alpha);
        QTRY_COMPARE(changes()->fileList()->count(), 2);
        changes()->fileList()->setCurrentRow(1);
        QTextEdit *view = changes()->diffView();
        QTextCursor c(blockEndingWith(view->document(), QStringLiteral("+ two (alpha)")));
        view->setTextCursor(c);
        auto *edit = changes()->findChild<QLineEdit *>(QStringLiteral("commentEdit"));
        QVERIFY(edit->isEnabled());
        QVERIFY(changes()
                    ->findChild<QLabel *>(QStringLiteral("commentTarget"))
                    ->text()
                    .contains(QStringLiteral("Line 2 of shared.txt")));
        // A header line takes no comment.
        view->setTextCursor(QTextCursor(view->document()->begin()));
        QVERIFY(!changes()->addComment(QStringLiteral("on a header")));
        view->setTextCursor(c);
        edit->setFocus();
        QTest::keyClicks(edit, QStringLiteral("Why the parenthesis?"));
        QTest::keyClick(edit, Qt::Key_Return);
        QCOMPARE(changes()->pendingComments().size(), 1);
        QCOMPARE(edit->text(), QString());

        f.mock.queueText(QStringLiteral("Will drop it."));
        const int before = f.mock.requestCount();
        QSignalSpy sent(changes(), &ui::ChangesPanel::reviewSent);
        QTest::mouseClick(buttonLabelled(changes(), QStringLiteral("Send review")), Qt::LeftButton);
        QVERIFY(sent.wait(10000));
        QCOMPARE(sent.first().first().toBool(), true);
        QCOMPARE(changes()->pendingComments().size(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(f.mock.requestCount() > before, 30000);
        const QString text = f.mock.lastUserTextOf(f.mock.requestCount() - 1);
        QVERIFY2(text.contains(QStringLiteral("Why the parenthesis?")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("shared.txt")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("> ")) &&
                     text.contains(QStringLiteral("two (alpha)")),
                 qPrintable(text));
        QTRY_VERIFY_WITH_TIMEOUT(taskCount(alpha) == 2, 60000);
    }

    // The main checkout changed the same line: the merge is refused with the path, nothing moves.
    void aConflictIsReportedAndNothingChanges() {
        repo->write(QStringLiteral("shared.txt"), "one\ntwo (main)\nthree\n");
        QVERIFY(repo->commitAll(QStringLiteral("main edits line two")));
        const QString mainHead = repo->head();
        select(alpha);
        QTRY_COMPARE(changes()->fileList()->count(), 2);
        changes()->setConfirm([](const QString &) { return true; });
        changes()->strategyBox()->setCurrentIndex(0); // merge commit
        QSignalSpy done(changes(), &ui::ChangesPanel::mergeFinished);
        QTest::mouseClick(buttonLabelled(changes(), QStringLiteral("Merge")), Qt::LeftButton);
        QVERIFY(done.wait(30000));
        QCOMPARE(done.first().first().toBool(), false);
        const QString result = changes()->resultLabel()->text();
        QVERIFY2(result.contains(QStringLiteral("conflicts in shared.txt")), qPrintable(result));
        QCOMPARE(repo->head(), mainHead);
        QCOMPARE(repo->status(), QString());
        QCOMPARE(GitRepo::read(f.cwd + QStringLiteral("/shared.txt")),
                 QByteArray("one\ntwo (main)\nthree\n"));
        QCOMPARE(GitRepo::read(worktreePath(alpha) + QStringLiteral("/shared.txt")),
                 QByteArray("one\ntwo (alpha)\nthree\n"));
    }

    // Work the agent left uncommitted is squashed into main; its diff is then empty.
    void aSquashMergeLands() {
        repo->write(QStringLiteral("beta.txt"), "from beta\n", worktreePath(beta));
        select(beta);
        QTest::mouseClick(buttonLabelled(changes(), QStringLiteral("Refresh")), Qt::LeftButton);
        QTRY_COMPARE(changes()->fileList()->count(), 2);
        QCOMPARE(itemTexts(changes()->fileList()).at(1), QStringLiteral("A  beta.txt  +1 \u22120"));

        // The screenshot: the Changes tab of an agent with work to merge.
        changes()->fileList()->setCurrentRow(1);
        const auto docks = f.window->findChildren<QDockWidget *>();
        for (QDockWidget *d : docks)
            d->hide();
        QTest::qWait(100); // let the window paint before the grab
        QVERIFY(QDir().mkpath(QStringLiteral(FLOTILLA_SCREENSHOT_DIR)));
        const QString shot = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-changes.png");
        QVERIFY(f.window->grab().save(shot, "PNG"));
        for (QDockWidget *d : docks)
            d->show();

        changes()->setConfirm([](const QString &) { return true; });
        changes()->strategyBox()->setCurrentIndex(
            changes()->strategyBox()->findData(QStringLiteral("squash")));
        QSignalSpy done(changes(), &ui::ChangesPanel::mergeFinished);
        QTest::mouseClick(buttonLabelled(changes(), QStringLiteral("Merge")), Qt::LeftButton);
        QVERIFY(done.wait(30000));
        const QString result = changes()->resultLabel()->text();
        QVERIFY2(done.first().first().toBool(), qPrintable(result));
        QVERIFY2(result.startsWith(QStringLiteral("Merged flotilla/beta into main (squash)")),
                 qPrintable(result));
        QCOMPARE(GitRepo::read(f.cwd + QStringLiteral("/beta.txt")), QByteArray("from beta\n"));
        QTRY_VERIFY(changes()->summaryLabel()->text().contains(QStringLiteral("no changes")));
        QCOMPARE(changes()->fileList()->count(), 0);
    }

    // The budget shows in the header, and the window reopens on the agent it showed.
    void budgetShowsAndTheSelectionIsRemembered() {
        select(alpha);
        QCOMPARE(f.http
                     .patch(f.url(QStringLiteral("/api/agents/%1").arg(alpha)),
                            {{QStringLiteral("budget"),
                              QJsonObject{{QStringLiteral("costUsd"), 5},
                                          {QStringLiteral("period"), QStringLiteral("day")}}}})
                     .status,
                 200);
        const auto usage = pane()->findChild<QLabel *>(QStringLiteral("agentUsage"));
        QTRY_VERIFY2(usage->text().contains(QStringLiteral("budget $5.00 per day")),
                     qPrintable(usage->text()));
        QVERIFY(usage->text().contains(QStringLiteral("worktree: branch flotilla/alpha")));

        f.window->close(); // saves the layout, the selected agent with it
        f.closeWindow();
        QVERIFY(f.openWindow());
        QTRY_COMPARE_WITH_TIMEOUT(pane()->agentId(), alpha, 10000);
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiChanges>(argc, argv, QStringLiteral("tst_monitor_ui_changes"));
}

#include "tst_monitor_ui_changes.moc"
