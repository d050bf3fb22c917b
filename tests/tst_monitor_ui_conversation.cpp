// The Conversation view with an agent at work: the real flotillad (child process),
// the real Claude Code CLI against MockAnthropic, the monitor's window under Xvfb. A long reply
// wraps instead of being cut; markdown renders (heading, list, code block in a fixed-pitch font
// under its language); HTML in a reply stays text; a Bash row expands to its output; an Edit
// shows a coloured diff; the view follows the stream at the bottom and stays put when scrolled
// up; Ctrl+F finds; a selection copies as text; errors and stops are marked; a fresh window
// shows history's user messages as user messages. A screenshot goes to FLOTILLA_SCREENSHOT_DIR.

#include "support/HermeticGui.h"
#include "support/MonitorUiFixture.h"
#include "ui/AgentPane.h"
#include "ui/ConversationView.h"
#include "ui/FindBar.h"

#include <QAbstractTextDocumentLayout>
#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFile>
#include <QFontInfo>
#include <QImage>
#include <QLineEdit>
#include <QScrollBar>
#include <QSplitter>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextList>
#include <QTextTable>

using namespace flotilla;
using namespace flotilla::monitor;
using namespace flotilla::test;

namespace {

QTextBlock blockWithText(const QTextDocument *doc, const QString &text) {
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next())
        if (b.text() == text)
            return b;
    return {};
}

QTextCharFormat formatAt(const QTextBlock &b, int offset = 0) {
    QTextCursor c(b);
    c.setPosition(b.position() + offset + 1);
    return c.charFormat();
}

bool hasBackground(const QTextBlock &b) {
    return b.blockFormat().background().style() != Qt::NoBrush;
}

} // namespace

class TestMonitorUiConversation final : public QObject {
    Q_OBJECT

private:
    MonitorUiFixture f;
    QString m_id;

    ui::ConversationView *view() const { return f.window->agentPane()->conversationView(); }
    int taskCount() const {
        return f.session->agents().agent(m_id).value(QStringLiteral("taskCount")).toInt();
    }
    // Sends over REST (the monitor learns the message from currentTask) and waits for the end
    // of the turn and for the view to show `shown`.
    bool sendAndWait(const QString &message, const QString &shown) {
        const int before = taskCount();
        if (f.sendMessage(m_id, message).status != 200)
            return false;
        return QTest::qWaitFor([&] { return taskCount() == before + 1; }, 60000) &&
               QTest::qWaitFor([&] { return view()->toPlainText().contains(shown); }, 10000);
    }
    // A real click on the text, as a user would click a tool row's header.
    void click(const QString &text) {
        ui::ConversationView *v = view();
        const QTextCursor found = v->document()->find(text);
        QVERIFY2(!found.isNull(), qPrintable(text));
        QTextCursor at(v->document());
        at.setPosition(found.selectionStart() + 1);
        v->setTextCursor(at);
        v->ensureCursorVisible();
        QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, v->cursorRect(at).center());
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(f.startService(), f.service.stdErr().constData());
        QVERIFY(f.openWindow());
        m_id = f.createAgent(QStringLiteral("talker"));
        QVERIFY(!m_id.isEmpty());
        QTRY_VERIFY(f.session->agents().rowOf(m_id) >= 0);
        f.agentsView()->selectAgent(m_id);
        QTRY_COMPARE(f.window->agentPane()->agentId(), m_id);
    }

    void cleanupTestCase() {
        f.closeWindow();
        f.service.terminate();
    }

    void longReplyWrapsInsteadOfBeingCut() {
        QStringList words;
        for (int i = 1; i <= 100; ++i)
            words << QStringLiteral("word%1").arg(i, 3, 10, QLatin1Char('0'));
        f.mock.queueText(words.join(QLatin1Char(' ')), 10);
        QVERIFY(sendAndWait(QStringLiteral("say a hundred words"), QStringLiteral("word100")));
        const QString shown = view()->toPlainText();
        for (const QString &w : std::as_const(words))
            QVERIFY2(shown.contains(w), qPrintable(w));
        QVERIFY(!shown.contains(QChar(0x2026))); // no ellipsis anywhere
        // Wrapped into many lines of one paragraph, within the width: no sideways scrolling.
        const QTextBlock reply = view()->document()->find(QStringLiteral("word001")).block();
        QVERIFY(reply.layout()->lineCount() > 3);
        QVERIFY(!view()->horizontalScrollBar()->isVisible());
        QCOMPARE(view()->horizontalScrollBar()->maximum(), 0);
        // The message that started the turn (sent over REST: from currentTask) is above it.
        const QTextBlock asked =
            view()->document()->find(QStringLiteral("say a hundred words")).block();
        QVERIFY(asked.isValid() && asked.position() < reply.position());
        QVERIFY(hasBackground(asked)); // set apart
        QVERIFY(blockWithText(view()->document(), QStringLiteral("say a hundred words")).isValid());
    }

    void markdownIsRendered() {
        f.mock.queueText(QStringLiteral("# Build plan\n\nSome **bold** and *emphasis*, see "
                                        "[the docs](https://example.org/docs).\n\n"
                                        "- first step\n- second step\n\n"
                                        "```python\nprint('hello from code')\n```\n"
                                        "Results:\n| name | value |\n|---|---|\n| alpha | 1 |\n\n"
                                        "Done."),
                         6);
        QVERIFY(sendAndWait(QStringLiteral("plan it"), QStringLiteral("Done.")));
        const QTextDocument *doc = view()->document();
        const QTextBlock heading = blockWithText(doc, QStringLiteral("Build plan"));
        QVERIFY(heading.isValid());
        QCOMPARE(heading.blockFormat().headingLevel(), 1);
        const QTextBlock first = blockWithText(doc, QStringLiteral("first step"));
        const QTextBlock second = blockWithText(doc, QStringLiteral("second step"));
        QVERIFY(first.textList() && first.textList() == second.textList());
        const QTextBlock code = blockWithText(doc, QStringLiteral("print('hello from code')"));
        QVERIFY(code.isValid());
        QVERIFY(QFontInfo(formatAt(code, 2).font()).fixedPitch());
        QVERIFY(hasBackground(code));
        QCOMPARE(code.previous().text(), QStringLiteral("python")); // the language label
        QVERIFY(
            !QFontInfo(formatAt(blockWithText(doc, QStringLiteral("Done."))).font()).fixedPitch());
        const QTextCursor bold = doc->find(QStringLiteral("bold"));
        QCOMPARE(bold.charFormat().fontWeight(), int(QFont::Bold));
        // A table right after a line of text (no blank line between, as agents write them).
        const QTextCursor cell = doc->find(QStringLiteral("alpha"));
        QVERIFY(cell.currentTable());
        QCOMPARE(cell.currentTable()->rows(), 2);
        const QTextCursor link = doc->find(QStringLiteral("the docs"));
        QVERIFY(link.charFormat().isAnchor());
        QCOMPARE(link.charFormat().anchorHref(), QStringLiteral("https://example.org/docs"));
    }

    void htmlInRepliesIsText() {
        const QString png = f.tmp.path() + QStringLiteral("/secret.png");
        QImage(4, 4, QImage::Format_RGB32).save(png);
        const QString image = QStringLiteral("file://") + png;
        f.mock.queueText(QStringLiteral("<script>alert('x')</script> and <b>not bold</b> "
                                        "<img src=\"%1\"> ![pic](%1) end-of-html")
                             .arg(image),
                         3);
        QVERIFY(sendAndWait(QStringLiteral("html please"), QStringLiteral("end-of-html")));
        const QString shown = view()->toPlainText();
        QVERIFY(shown.contains(QStringLiteral("<script>alert('x')</script>")));
        QVERIFY(shown.contains(QStringLiteral("<b>not bold</b>")));
        QVERIFY(view()->document()->find(QStringLiteral("not bold")).charFormat().fontWeight() !=
                int(QFont::Bold));
        // The markdown image is not loaded from disk (nor from anywhere).
        QVERIFY(view()
                    ->document()
                    ->resource(QTextDocument::ImageResource, QUrl(image))
                    .value<QImage>()
                    .isNull());
    }

    void bashRowExpandsToItsOutput() {
        f.mock.queueToolUse(
            QStringLiteral("Bash"),
            {{QStringLiteral("command"), QStringLiteral("printf 'out-%s\\n' alpha beta")},
             {QStringLiteral("description"), QStringLiteral("print two lines")}});
        f.mock.queueText(QStringLiteral("Printed."));
        QVERIFY(sendAndWait(QStringLiteral("run printf"), QStringLiteral("Printed.")));
        QVERIFY(view()->toPlainText().contains(QStringLiteral("printf 'out-%s\\n' alpha beta")));
        QVERIFY(!view()->toPlainText().contains(QStringLiteral("out-alpha"))); // compact
        click(QStringLiteral("printf 'out-%s"));
        QTRY_VERIFY(view()->toPlainText().contains(QStringLiteral("out-alpha")));
        QVERIFY(view()->toPlainText().contains(QStringLiteral("out-beta")));
        QVERIFY(view()->toPlainText().contains(QStringLiteral("$ printf 'out-%s")));
        click(QStringLiteral("printf 'out-%s")); // and closed again
        QTRY_VERIFY(!view()->toPlainText().contains(QStringLiteral("out-alpha")));
    }

    void editShowsAColouredDiff() {
        const QString path = f.cwd + QStringLiteral("/notes.txt");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("alpha\nbeta\ngamma\n");
        file.close();
        f.mock.queueToolUse(QStringLiteral("Read"), {{QStringLiteral("file_path"), path}});
        f.mock.queueToolUse(QStringLiteral("Edit"),
                            {{QStringLiteral("file_path"), path},
                             {QStringLiteral("old_string"), QStringLiteral("beta\n")},
                             {QStringLiteral("new_string"), QStringLiteral("BETA\ndelta\n")}});
        f.mock.queueText(QStringLiteral("Edited."));
        QVERIFY(sendAndWait(QStringLiteral("edit the notes"), QStringLiteral("Edited.")));
        QVERIFY(view()->toPlainText().contains(QStringLiteral("+2 \u22121"))); // in the header
        click(QStringLiteral("+2 \u22121"));
        const QTextDocument *doc = view()->document();
        QTRY_VERIFY(blockWithText(doc, QStringLiteral("- beta")).isValid());
        const QColor removed =
            blockWithText(doc, QStringLiteral("- beta")).blockFormat().background().color();
        const QColor added =
            blockWithText(doc, QStringLiteral("+ BETA")).blockFormat().background().color();
        QVERIFY(blockWithText(doc, QStringLiteral("+ delta")).isValid());
        QVERIFY2(removed.red() > removed.green(), qPrintable(removed.name()));
        QVERIFY2(added.green() > added.red(), qPrintable(added.name()));
        QVERIFY(formatAt(blockWithText(doc, QStringLiteral("+ BETA"))).foreground().color() !=
                formatAt(blockWithText(doc, QStringLiteral("- beta"))).foreground().color());

        // The screenshot: docks out of the way, the markdown reply at the top of the view.
        const auto docks = f.window->findChildren<QDockWidget *>();
        for (QDockWidget *d : docks)
            d->hide();
        f.window->findChild<QSplitter *>(QStringLiteral("mainSplitter"))->setSizes({100, 760});
        QTRY_VERIFY(view()->height() > 500);
        const QTextBlock plan = blockWithText(doc, QStringLiteral("plan it"));
        view()->verticalScrollBar()->setValue(
            int(view()->document()->documentLayout()->blockBoundingRect(plan.previous()).top()));
        QTest::qWait(100); // let the view paint before the grab
        QVERIFY(QDir().mkpath(QStringLiteral(FLOTILLA_SCREENSHOT_DIR)));
        const QString shot = QStringLiteral(FLOTILLA_SCREENSHOT_DIR "/monitor-conversation.png");
        QVERIFY(f.window->grab().save(shot, "PNG"));
        qInfo("screenshot: %s", qPrintable(shot));
        for (QDockWidget *d : docks)
            d->show();
    }

    void streamFollowsTheTailUnlessScrolledUp() {
        QStringList paragraphs;
        for (int i = 1; i <= 40; ++i)
            paragraphs << QStringLiteral("Paragraph %1 of a long answer that streams in.").arg(i);
        const QString text = paragraphs.join(QStringLiteral("\n\n"));
        QScrollBar *bar = view()->verticalScrollBar();

        // At the bottom: the view follows every update.
        view()->setFocus();
        QTest::keyClick(view(), Qt::Key_End);
        QVERIFY(view()->isFollowing());
        f.mock.queueText(text, 40, 60);
        QCOMPARE(f.sendMessage(m_id, QStringLiteral("stream a lot")).status, 200);
        QTRY_VERIFY_WITH_TIMEOUT(view()->toPlainText().contains(QStringLiteral("Paragraph 20 ")),
                                 30000);
        QTRY_VERIFY(bar->value() >= bar->maximum() - 4);
        QTRY_VERIFY_WITH_TIMEOUT(view()->toPlainText().contains(QStringLiteral("Paragraph 40 ")),
                                 30000);
        QTRY_VERIFY(bar->value() >= bar->maximum() - 4);
        QTRY_COMPARE_WITH_TIMEOUT(
            f.session->agents().agent(m_id).value(QStringLiteral("status")).toString(),
            QStringLiteral("idle"), 30000);

        // Scrolled up: what the user reads stays where it is while the reply grows.
        f.mock.queueText(text, 40, 60);
        QCOMPARE(f.sendMessage(m_id, QStringLiteral("stream it again")).status, 200);
        TranscriptModel &conv = f.session->conversation(m_id);
        QTRY_VERIFY_WITH_TIMEOUT(conv.entry(conv.rowCount() - 1).streaming, 30000);
        QTRY_VERIFY(bar->maximum() > 600);
        bar->setValue(bar->maximum() / 2); // as a wheel or drag would
        QVERIFY(!view()->isFollowing());
        const int value = bar->value();
        const int topPosition = view()->cursorForPosition(QPoint(5, 5)).position();
        const int maximum = bar->maximum();
        QTRY_VERIFY_WITH_TIMEOUT(bar->maximum() > maximum + 200, 30000); // it grew below
        QCOMPARE(bar->value(), value);
        QCOMPARE(view()->cursorForPosition(QPoint(5, 5)).position(), topPosition);
        QVERIFY(!view()->isFollowing());
        QTRY_COMPARE_WITH_TIMEOUT(conv.entry(conv.rowCount() - 1).streaming, false, 30000);
        QCOMPARE(bar->value(), value);
        // End goes back to the tail, and following resumes.
        QTest::keyClick(view(), Qt::Key_End);
        QTRY_VERIFY(bar->value() >= bar->maximum() - 4);
        QVERIFY(view()->isFollowing());
    }

    void ctrlFFindsInTheConversation() {
        f.window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(f.window.get()));
        view()->setFocus();
        QTRY_VERIFY(view()->hasFocus());
        QTest::keyClick(view(), Qt::Key_F, Qt::ControlModifier);
        ui::FindBar *bar = f.window->agentPane()->findBar();
        QTRY_VERIFY(bar->isVisible());
        QTRY_VERIFY(bar->edit()->hasFocus());
        QTest::keyClicks(bar->edit(), QStringLiteral("paragraph 7 "));
        // Two replies streamed the same paragraphs: two matches, the first one selected.
        QTRY_COMPARE(bar->status(), QStringLiteral("1 of 2"));
        QCOMPARE(view()->textCursor().selectedText(), QStringLiteral("Paragraph 7 "));
        const int first = view()->textCursor().selectionStart();
        QTest::keyClick(bar->edit(), Qt::Key_Return);
        QCOMPARE(bar->status(), QStringLiteral("2 of 2"));
        QVERIFY(view()->textCursor().selectionStart() > first);
        QTest::keyClick(bar->edit(), Qt::Key_Return, Qt::ShiftModifier);
        QCOMPARE(view()->textCursor().selectionStart(), first);
        QTest::keyClicks(bar->edit(), QStringLiteral("zzz-nowhere"));
        QTRY_COMPARE(bar->status(), QStringLiteral("No matches"));
        QTest::keyClick(bar->edit(), Qt::Key_Escape);
        QTRY_VERIFY(!bar->isVisible());
        QVERIFY(view()->extraSelections().isEmpty());
    }

    void selectionCopiesAsText() {
        const QTextCursor found = view()->document()->find(QStringLiteral("word050"));
        QVERIFY(!found.isNull());
        QTextCursor selection(view()->document());
        selection.setPosition(found.selectionStart());
        selection.setPosition(found.selectionStart() + 15, QTextCursor::KeepAnchor);
        view()->setTextCursor(selection);
        view()->setFocus();
        QApplication::clipboard()->clear();
        QTest::keyClick(view(), Qt::Key_C, Qt::ControlModifier);
        QTRY_COMPARE(QApplication::clipboard()->text(), QStringLiteral("word050 word051"));
    }

    void errorsAndStopsAreMarked() {
        // A 403 ends the turn at once with the API's error.
        f.mock.queueError(403, QStringLiteral("permission_error"),
                          QStringLiteral("no access here"));
        QVERIFY(sendAndWait(QStringLiteral("fail please"), QStringLiteral("Error: ")));
        const QTextBlock error = view()->document()->find(QStringLiteral("Error: ")).block();
        QVERIFY(error.text().startsWith(QStringLiteral("\u2716 Error: ")));
        QVERIFY(hasBackground(error));

        f.mock.queueSlow(QStringLiteral("a slow answer that will be cut short"), 20000);
        QCOMPARE(f.sendMessage(m_id, QStringLiteral("take your time")).status, 200);
        TranscriptModel &conv = f.session->conversation(m_id);
        QTRY_VERIFY_WITH_TIMEOUT(conv.entry(conv.rowCount() - 1).streaming, 30000);
        f.session->stopAgents({m_id});
        const QString stopped = QStringLiteral("\u25a0 [stopped]");
        QTRY_VERIFY_WITH_TIMEOUT(blockWithText(view()->document(), stopped).isValid(), 30000);
        QVERIFY(hasBackground(blockWithText(view()->document(), stopped)));
        // What streamed before the stop stays, above the mark.
        const TranscriptEntry &cut = conv.entry(conv.rowCount() - 2);
        QCOMPARE(cut.kind, TranscriptEntry::Kind::Assistant);
        QVERIFY(!cut.streaming);
        QVERIFY(view()->toPlainText().contains(cut.text.trimmed()));
    }

    // No service: a reply streamed delta by delta is re-rendered from its last complete
    // paragraph on, and at every step reads exactly as the whole reply rendered at
    // once: paragraphs, a code fence with blank lines inside, a loose list, a table, a heading.
    void streamingTailReadsAsTheWholeReply() {
        const auto withoutTrailingNewlines = [](QString text) {
            while (text.endsWith(QLatin1Char('\n')))
                text.chop(1);
            return text;
        };
        const QString reply = QStringLiteral(
            "First paragraph, *emphasis* and `code`.\n\nSecond paragraph\nwith two lines.\n\n"
            "```cpp\nint a;\n\nint b; // a blank line inside the fence\n```\n\n"
            "- one\n\n- two\n\n1. first\n\n2. second\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
            "## A heading\n\nThe end.");
        auto chunk = [](const QString &text, bool streaming) {
            return QJsonObject{{QStringLiteral("agentId"), QStringLiteral("a")},
                               {QStringLiteral("text"), text},
                               {QStringLiteral("isStreaming"), streaming},
                               {QStringLiteral("timestamp"), 1}};
        };
        TranscriptModel streamed(100);
        ui::ConversationView v;
        v.resize(600, 400);
        v.setTranscript(&streamed);
        streamed.turnStarted(QStringLiteral("q"), 1);
        // The same text, finished, in a view of its own: the reference rendering.
        TranscriptModel whole(100);
        ui::ConversationView reference;
        reference.resize(600, 400);
        reference.setTranscript(&whole);
        whole.turnStarted(QStringLiteral("q"), 1);
        whole.appendChunk(chunk(QString(), false)); // nothing yet: only the question
        QString sent;
        for (qsizetype at = 0; at < reply.size(); at += 7) {
            const QString delta = reply.mid(at, 7);
            sent += delta;
            streamed.appendChunk(chunk(delta, true));
            TranscriptModel once(100);
            ui::ConversationView fresh;
            fresh.setTranscript(&once);
            once.turnStarted(QStringLiteral("q"), 1);
            once.appendChunk(chunk(sent, false));
            // An empty block at the very end (a list closed by a trailing blank line) is not
            // text a reader sees.
            QTRY_COMPARE(withoutTrailingNewlines(v.toPlainText()),
                         withoutTrailingNewlines(fresh.toPlainText()));
        }
        streamed.appendChunk(chunk(QString(), false));
        whole.appendChunk(chunk(reply, false));
        QTRY_COMPARE(v.toPlainText(), reference.toPlainText());
    }

    // No service: a long session in a view of its own. Only the newest entries are rendered;
    // scrolling to the top renders older ones; entries the bound drops above what the user reads
    // do not move it.
    void longSessionsKeepTheReadersPlace() {
        TranscriptModel model(400);
        int turn = 0;
        const auto addTurns = [&](int n) {
            for (int i = 0; i < n; ++i, ++turn) {
                model.turnStarted(QStringLiteral("question %1").arg(turn), turn + 1);
                for (const bool streaming : {true, false})
                    model.appendChunk(
                        {{QStringLiteral("agentId"), QStringLiteral("a")},
                         {QStringLiteral("text"),
                          streaming ? QStringLiteral("Answer %1.").arg(turn) : QString()},
                         {QStringLiteral("isStreaming"), streaming},
                         {QStringLiteral("timestamp"), turn + 1}});
            }
        };
        addTurns(200); // 400 entries
        QCOMPARE(model.rowCount(), 400);
        ui::ConversationView v;
        v.resize(600, 400);
        v.setTranscript(&model);
        v.show();
        QVERIFY(QTest::qWaitForWindowExposed(&v));
        QCOMPARE(v.renderedCount(), ui::ConversationView::kInitialEntries); // the newest
        QCOMPARE(v.firstRenderedRow(), 400 - ui::ConversationView::kInitialEntries);
        QTRY_VERIFY(v.isFollowing());
        // Scrolling to the top renders older entries above, a step at a time.
        QScrollBar *bar = v.verticalScrollBar();
        for (int step = 0; step < 5 && v.firstRenderedRow() > 0; ++step) {
            const int first = v.firstRenderedRow();
            bar->setValue(bar->minimum());
            QTRY_VERIFY(v.firstRenderedRow() < first);
            QVERIFY(bar->value() > bar->minimum()); // what was at the top stays in view
        }
        QCOMPARE(v.firstRenderedRow(), 0);
        QCOMPARE(v.renderedCount(), 400);
        // Where the user reads: a block in the middle, and how far down the view it is.
        bar->setValue(bar->maximum() / 2);
        QVERIFY(!v.isFollowing());
        const QTextCursor at = v.cursorForPosition(QPoint(20, 100));
        const QString reading = at.block().text();
        QVERIFY2(reading.startsWith(QStringLiteral("Answer")) ||
                     reading.startsWith(QStringLiteral("question")),
                 qPrintable(reading));
        const auto place = [&v](const QString &text) {
            return v.cursorRect(v.document()->find(text)).top();
        };
        const int top = place(reading);
        addTurns(30); // 60 more: the bound drops the 60 oldest, rendered far above
        QCOMPARE(model.droppedCount(), 60);
        QCOMPARE(v.renderedCount(), 400);
        QVERIFY2(std::abs(place(reading) - top) <= 1,
                 qPrintable(QStringLiteral("%1 -> %2").arg(top).arg(place(reading))));
        QVERIFY(!v.isFollowing());
        QVERIFY(v.document()->toPlainText().contains(QStringLiteral("Answer 229.")));
        QVERIFY(!v.document()->toPlainText().contains(QStringLiteral("Answer 29.")));
    }

    void freshWindowShowsHistoryUserMessagesAsSuch() {
        f.closeWindow();
        QVERIFY(f.openWindow());
        QTRY_VERIFY(f.session->agents().rowOf(m_id) >= 0);
        f.agentsView()->selectAgent(m_id);
        // The latest history page: the user's messages in their blocks, not "> text" lines.
        QTRY_VERIFY_WITH_TIMEOUT(view()->toPlainText().contains(QStringLiteral("take your time")),
                                 15000);
        const QTextBlock asked =
            blockWithText(view()->document(), QStringLiteral("take your time"));
        QVERIFY(asked.isValid());
        QVERIFY(hasBackground(asked));
        QCOMPARE(asked.previous().text().left(3), QStringLiteral("You"));
        QVERIFY(!view()->toPlainText().contains(QStringLiteral("> take your time")));
    }
};

int main(int argc, char *argv[]) {
    return runGuiSuite<TestMonitorUiConversation>(argc, argv,
                                                  QStringLiteral("tst_monitor_ui_conversation"));
}

#include "tst_monitor_ui_conversation.moc"
