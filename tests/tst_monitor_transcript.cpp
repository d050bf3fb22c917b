// The conversation's data as pure units: TranscriptModel (deltas make one reply, the
// final chunk closes it, a tool call and its result are one entry, errors and stops marked, turn
// starts give user messages, a repeated notice counts on its line within a turn, the bounds drop
// the oldest, history pages go on top), history
// conversion, and a reply read as a terminal would show it. No service, no widgets. (How tool calls
// read: tst_monitor_tool_presentation.)

#include "core/HistoryConvert.h"
#include "core/ReplyMarkdown.h"
#include "core/TranscriptModel.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QTest>

using namespace flotilla::monitor;
namespace k = flotilla::wire::key;
using Kind = TranscriptEntry::Kind;

namespace {

QJsonObject delta(const QString &text, qint64 ts = 1000) {
    return {{k::AgentId, QStringLiteral("a1")},
            {k::Text, text},
            {k::IsStreaming, true},
            {k::Timestamp, ts}};
}

QJsonObject finalChunk(const QString &text = {}) {
    return {{k::AgentId, QStringLiteral("a1")},
            {k::Text, text},
            {k::IsStreaming, false},
            {k::Timestamp, 2000}};
}

QJsonObject toolUse(const QString &tool, const QJsonObject &input) {
    QJsonObject c = delta(QString());
    c.insert(k::ToolName, tool);
    c.insert(k::ToolInput, input);
    return c;
}

QJsonObject toolResult(const QString &tool, const QString &output) {
    QJsonObject c = delta(QString());
    c.insert(k::ToolName, tool);
    c.insert(k::ToolOutput, output);
    return c;
}

QList<Kind> kinds(const TranscriptModel &m) {
    QList<Kind> out;
    for (int row = 0; row < m.rowCount(); ++row)
        out << m.entry(row).kind;
    return out;
}

QStringList texts(const TranscriptModel &m) {
    QStringList out;
    for (int row = 0; row < m.rowCount(); ++row)
        out << m.index(row).data().toString();
    return out;
}

} // namespace

class TestMonitorTranscript final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deltasAppendToOneReply() {
        TranscriptModel m;
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        for (const char *piece : {"# Plan\n\n- one", "\n- two\n\n```py", "thon\nprint(1)\n```\n"})
            m.appendChunk(delta(QString::fromUtf8(piece)));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(changed.count(), 2); // one per later delta, same row
        QCOMPARE(changed.at(1).at(0).toModelIndex().row(), 0);
        const TranscriptEntry &reply = m.entry(0);
        QCOMPARE(reply.kind, Kind::Assistant);
        QCOMPARE(reply.text,
                 QStringLiteral("# Plan\n\n- one\n- two\n\n```python\nprint(1)\n```\n"));
        QVERIFY(reply.streaming);
        QCOMPARE(reply.timestamp, 1000);
    }

    void finalChunkClosesTheReply() {
        TranscriptModel m;
        m.appendChunk(delta(QStringLiteral("first turn")));
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.appendChunk(finalChunk());
        QCOMPARE(m.rowCount(), 1);
        QVERIFY(!m.entry(0).streaming);
        QCOMPARE(changed.count(), 1);
        m.appendChunk(delta(QStringLiteral("second turn")));
        QCOMPARE(texts(m),
                 QStringList({QStringLiteral("first turn"), QStringLiteral("second turn")}));
        QVERIFY(m.entry(1).streaming);
    }

    void errorsAndStopsAreMarked_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("kind");
        QTest::newRow("failed turn")
            << QStringLiteral("Error: the model API failed") << int(Kind::Error);
        QTest::newRow("bad delegation")
            << QStringLiteral("Delegation error: no agent \"x\"") << int(Kind::Error);
        QTest::newRow("stopped") << QStringLiteral("[stopped]") << int(Kind::Stopped);
        QTest::newRow("service text")
            << QStringLiteral("Session restarted.") << int(Kind::Assistant);
    }
    void errorsAndStopsAreMarked() {
        QFETCH(QString, text);
        QFETCH(int, kind);
        TranscriptModel m;
        m.turnStarted(QStringLiteral("do it"), 500);
        m.appendChunk(delta(QStringLiteral("partial")));
        m.appendChunk(finalChunk(text));
        QCOMPARE(m.rowCount(), 3);
        QVERIFY(!m.entry(1).streaming); // the partial reply is closed, not lost
        QCOMPARE(int(m.entry(2).kind), kind);
        QCOMPARE(m.entry(2).text, text);
        QVERIFY(!m.inTurn());
    }

    void toolCallAndResultAreOneEntry() {
        TranscriptModel m;
        m.appendChunk(delta(QStringLiteral("Let me look")));
        m.appendChunk(
            toolUse(QStringLiteral("Bash"), {{QStringLiteral("command"), QStringLiteral("ls")}}));
        QVERIFY(!m.entry(0).streaming); // closed by the tool
        QCOMPARE(m.entry(1).kind, Kind::Tool);
        QVERIFY(m.entry(1).hasInput && !m.entry(1).hasResult);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.appendChunk(toolResult(QStringLiteral("Bash"), QStringLiteral("a.txt\nb.txt\n")));
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 1);
        QCOMPARE(m.entry(1).toolOutput, QStringLiteral("a.txt\nb.txt\n"));
        QVERIFY(m.entry(1).hasResult && !m.entry(1).isError);
        m.appendChunk(delta(QStringLiteral("Two files.")));
        QCOMPARE(kinds(m), QList<Kind>({Kind::Assistant, Kind::Tool, Kind::Assistant}));
    }

    void parallelCallsTakeTheirResultsInOrder() {
        TranscriptModel m;
        m.appendChunk(
            toolUse(QStringLiteral("Read"), {{QStringLiteral("file_path"), QStringLiteral("/a")}}));
        m.appendChunk(
            toolUse(QStringLiteral("Read"), {{QStringLiteral("file_path"), QStringLiteral("/b")}}));
        m.appendChunk(
            toolUse(QStringLiteral("Edit"), {{QStringLiteral("file_path"), QStringLiteral("/c")}}));
        m.appendChunk(toolResult(QStringLiteral("Read"), QStringLiteral("content of a")));
        m.appendChunk(toolResult(QStringLiteral("Edit"),
                                 QStringLiteral("<tool_use_error>File has not been read yet")));
        m.appendChunk(toolResult(QStringLiteral("Read"), QStringLiteral("content of b")));
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.entry(0).toolOutput, QStringLiteral("content of a"));
        QCOMPARE(m.entry(1).toolOutput, QStringLiteral("content of b"));
        QVERIFY(m.entry(2).isError);
        // A result whose call is unknown (the monitor connected after it) is an entry anyway.
        m.appendChunk(toolResult(QStringLiteral("Grep"), QStringLiteral("match")));
        QCOMPARE(m.rowCount(), 4);
        QVERIFY(!m.entry(3).hasInput && m.entry(3).hasResult);
    }

    void userMessagesFromTurnStarts() {
        TranscriptModel m;
        // Ours: pending until the service starts its turn; then no second copy.
        const quint64 id = m.appendUserMessage(QStringLiteral("fix the build"), 100);
        QVERIFY(m.entry(0).pending);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.turnStarted(QStringLiteral("fix the build"), 150);
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(inserted.count(), 0);
        QVERIFY(!m.entry(0).pending);
        QCOMPARE(m.entry(0).id, id);
        QVERIFY(m.inTurn());
        // A resync announcing the same turn changes nothing.
        m.turnStarted(QStringLiteral("fix the build"), 150);
        QCOMPARE(m.rowCount(), 1);
        m.appendChunk(delta(QStringLiteral("Fixed.")));
        m.appendChunk(finalChunk());

        // Someone else's message (REST, a boss, a monitor connected mid-turn): from currentTask,
        // which holds its first 200 characters.
        const QString longTask(TranscriptModel::kCurrentTaskLength, QLatin1Char('x'));
        m.turnStarted(longTask, 300);
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.entry(2).kind, Kind::User);
        QCOMPARE(m.entry(2).text, longTask);
        QVERIFY(m.entry(2).fromTask && m.entry(2).truncated);
        QCOMPARE(m.entry(2).timestamp, 300);
        m.turnEnded();
        QVERIFY(!m.inTurn());
    }

    void messageFromCurrentTaskGivesWayToHistory() {
        // Connected mid-turn: the message from currentTask, then the rest of the reply.
        TranscriptModel m;
        m.turnStarted(QStringLiteral("explain the build"), 500);
        QVERIFY(m.entry(0).fromTask);
        m.appendChunk(delta(QStringLiteral("...rest of the answer"), 700));
        // What the turn did before the monitor saw it is still to be paged.
        QCOMPARE(m.oldestTimestamp(), 700);
        const QJsonArray page{
            QJsonObject{{k::Type, QStringLiteral("user")},
                        {QStringLiteral("content"), QStringLiteral("earlier")},
                        {k::Timestamp, 100}},
            QJsonObject{{k::Type, QStringLiteral("user")},
                        {QStringLiteral("content"), QStringLiteral("explain the build")},
                        {k::Timestamp, 510}},
            QJsonObject{
                {k::Type, QStringLiteral("tool_use")},
                {k::ToolName, QStringLiteral("Bash")},
                {k::ToolInput, QJsonObject{{QStringLiteral("command"), QStringLiteral("make")}}},
                {k::Timestamp, 600}}};
        m.prependHistory(entriesFromHistory(page));
        QCOMPARE(texts(m),
                 QStringList({QStringLiteral("earlier"), QStringLiteral("explain the build"),
                              QStringLiteral("Bash"), QStringLiteral("...rest of the answer")}));
        QVERIFY(!m.entry(1).fromTask);
    }

    void queuedMessageMovesBelowTheTurnBefore() {
        TranscriptModel m;
        m.appendUserMessage(QStringLiteral("first"), 1);
        m.appendUserMessage(QStringLiteral("second"), 2); // queued behind the first
        m.turnStarted(QStringLiteral("first"), 3);
        m.appendChunk(delta(QStringLiteral("answer one")));
        m.appendChunk(finalChunk());
        QVERIFY(m.entry(1).pending);
        m.turnStarted(QStringLiteral("second"), 4);
        QCOMPARE(texts(m), QStringList({QStringLiteral("first"), QStringLiteral("answer one"),
                                        QStringLiteral("second")}));
        QVERIFY(!m.entry(2).pending);
        // A refused send is not queued any more.
        const quint64 refused = m.appendUserMessage(QStringLiteral("third"), 5);
        m.setPending(refused, false);
        QVERIFY(!m.entry(3).pending);
    }

    // A notice that repeats (a connection the sandbox refused) counts on the line it made, wherever
    // the turn went since; another key, or the next turn, makes a new line. A reply it interrupts
    // is closed, as for any notice.
    void repeatedNoticeCountsWithinATurn() {
        TranscriptModel m;
        const auto line = [](const QString &key) {
            return [key](int times) -> QString { return key + QStringLiteral(" x%1").arg(times); };
        };
        const QString a = QStringLiteral("127.0.0.1:9");
        const QString b = QStringLiteral("[::1]:443");
        m.turnStarted(QStringLiteral("reach out"), 10);
        m.appendChunk(delta(QStringLiteral("trying")));
        m.appendRepeatedNotice(a, line(a));
        QVERIFY(!m.entry(1).streaming);
        m.appendChunk(toolUse(QStringLiteral("Bash"), {{QStringLiteral("command"), a}}));
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.appendRepeatedNotice(a, line(a));
        m.appendRepeatedNotice(b, line(b));
        m.appendRepeatedNotice(a, line(a));
        QCOMPARE(texts(m), QStringList({QStringLiteral("reach out"), QStringLiteral("trying"),
                                        a + QStringLiteral(" x3"), QStringLiteral("Bash"),
                                        b + QStringLiteral(" x1")}));
        QCOMPARE(m.entry(2).kind, Kind::Notice);
        QCOMPARE(m.entry(2).repeats, 3);
        QCOMPARE(changed.count(), 2);
        // A message queued meanwhile has not started a turn: still counted on the same line.
        m.appendUserMessage(QStringLiteral("next"), 20);
        m.appendRepeatedNotice(a, line(a));
        QCOMPARE(m.entry(2).text, a + QStringLiteral(" x4"));
        m.appendChunk(finalChunk());
        m.turnStarted(QStringLiteral("next"), 30);
        m.appendRepeatedNotice(a, line(a));
        QCOMPARE(m.rowCount(), 7);
        QCOMPARE(m.entry(6).text, a + QStringLiteral(" x1"));
        // A plain notice is never counted on.
        m.appendNotice(a + QStringLiteral(" x1"));
        m.appendRepeatedNotice(a, line(a));
        QCOMPARE(m.entry(6).text, a + QStringLiteral(" x2"));
        QCOMPARE(m.rowCount(), 8);
    }

    void boundDropsTheOldest_data() {
        QTest::addColumn<int>("maxEntries");
        QTest::addColumn<qint64>("maxBytes");
        QTest::addColumn<int>("kept");
        QTest::newRow("by entries") << 5 << qint64(1 << 20) << 5;
        // Each entry below costs 96 + 2 * 1000 bytes: three fit in 7,000.
        QTest::newRow("by bytes") << 1000 << qint64(7000) << 3;
        QTest::newRow("one entry over the byte bound stays") << 1000 << qint64(100) << 1;
    }
    void boundDropsTheOldest() {
        QFETCH(int, maxEntries);
        QFETCH(qint64, maxBytes);
        QFETCH(int, kept);
        TranscriptModel m(maxEntries, maxBytes);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        for (int i = 0; i < 20; ++i) {
            m.appendChunk(delta(QString(999, QLatin1Char('a' + i % 26)) + QString::number(i % 10)));
            m.appendChunk(finalChunk());
        }
        QCOMPARE(m.rowCount(), kept);
        QCOMPARE(m.droppedCount(), 20 - kept);
        QVERIFY(m.bytes() <= maxBytes || kept == 1);
        QVERIFY(m.entry(kept - 1).text.endsWith(QLatin1Char('9'))); // the newest is there
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 20 - kept);

        // A reply growing past the byte bound pushes older entries out as it streams.
        TranscriptModel grow(100, 10000);
        grow.appendNotice(QStringLiteral("old"));
        grow.appendChunk(delta(QString(3000, QLatin1Char('x'))));
        QCOMPARE(grow.rowCount(), 2);
        grow.appendChunk(delta(QString(3000, QLatin1Char('y'))));
        QCOMPARE(grow.rowCount(), 1);
        QVERIFY(grow.entry(0).streaming);
    }

    void historyPagesGoOnTop() {
        TranscriptModel m(5);
        m.appendChunk(delta(QStringLiteral("live 1")));
        m.appendChunk(finalChunk());
        m.appendChunk(delta(QStringLiteral("live 2")));
        m.appendChunk(finalChunk());
        QList<TranscriptEntry> older;
        for (int i = 0; i < 4; ++i)
            older << TranscriptEntry::make(Kind::User, QStringLiteral("old %1").arg(i), 10 + i);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.prependHistory(older);
        // Three fit: the newest three of the page, oldest first, above the live entries.
        QCOMPARE(texts(m), QStringList({QStringLiteral("old 1"), QStringLiteral("old 2"),
                                        QStringLiteral("old 3"), QStringLiteral("live 1"),
                                        QStringLiteral("live 2")}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        QCOMPARE(m.oldestTimestamp(), 11);
        m.prependHistory(older); // full: nothing more
        QCOMPARE(m.rowCount(), 5);
    }

    void resultAtTheTopJoinsItsCallFromTheNextPage() {
        TranscriptModel m;
        // The newer page began with a result; its call is the last entry of the older page.
        const QJsonArray newer{QJsonObject{{k::Type, QStringLiteral("tool_result")},
                                           {QStringLiteral("content"), QStringLiteral("ok")},
                                           {QStringLiteral("toolUseId"), QStringLiteral("t1")},
                                           {k::ToolName, QStringLiteral("Bash")}},
                               QJsonObject{{k::Type, QStringLiteral("assistant")},
                                           {QStringLiteral("content"), QStringLiteral("Done.")}}};
        m.prependHistory(entriesFromHistory(newer));
        QCOMPARE(m.rowCount(), 2);
        QVERIFY(!m.entry(0).hasInput);
        const QJsonArray page{QJsonObject{{k::Type, QStringLiteral("user")},
                                          {QStringLiteral("content"), QStringLiteral("run it")}},
                              QJsonObject{{k::Type, QStringLiteral("tool_use")},
                                          {k::ToolName, QStringLiteral("Bash")},
                                          {QStringLiteral("toolUseId"), QStringLiteral("t1")},
                                          {k::ToolInput, QJsonObject{{QStringLiteral("command"),
                                                                      QStringLiteral("make")}}}}};
        m.prependHistory(entriesFromHistory(page));
        QCOMPARE(kinds(m), QList<Kind>({Kind::User, Kind::Tool, Kind::Assistant}));
        QCOMPARE(m.entry(1).toolOutput, QStringLiteral("ok"));
        QVERIFY(m.entry(1).hasInput && m.entry(1).hasResult);
    }

    void historyEntriesBecomeTranscriptEntries() {
        const QJsonArray messages{
            QJsonObject{{k::Type, QStringLiteral("user")},
                        {QStringLiteral("content"), QStringLiteral("run ls")},
                        {k::Timestamp, 10}},
            QJsonObject{{k::Type, QStringLiteral("assistant")},
                        {QStringLiteral("content"), QStringLiteral("Sure.\nRunning it.")},
                        {k::Timestamp, 11}},
            QJsonObject{
                {k::Type, QStringLiteral("tool_use")},
                {k::ToolName, QStringLiteral("Bash")},
                {QStringLiteral("toolUseId"), QStringLiteral("u1")},
                {k::ToolInput, QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}}},
                {QStringLiteral("content"), QString()}},
            QJsonObject{{k::Type, QStringLiteral("assistant")},
                        {QStringLiteral("content"), QStringLiteral("sub-agent text")},
                        {QStringLiteral("isSubagent"), true}},
            QJsonObject{{k::Type, QStringLiteral("tool_result")},
                        {QStringLiteral("content"), QStringLiteral("no such file")},
                        {QStringLiteral("toolUseId"), QStringLiteral("u1")},
                        {QStringLiteral("isError"), true}},
        };
        const QList<TranscriptEntry> e = entriesFromHistory(messages);
        QCOMPARE(e.size(), 3);
        QCOMPARE(e[0].kind, Kind::User); // a user message, not an info line
        QCOMPARE(e[0].text, QStringLiteral("run ls"));
        QCOMPARE(e[0].timestamp, 10);
        QCOMPARE(e[1].text, QStringLiteral("Sure.\nRunning it."));
        QCOMPARE(e[2].kind, Kind::Tool);
        QCOMPARE(e[2].toolName, QStringLiteral("Bash"));
        QCOMPARE(e[2].toolOutput, QStringLiteral("no such file"));
        QVERIFY(e[2].isError && e[2].hasInput && e[2].hasResult);
    }

    void repliesReadAsInATerminal_data() {
        QTest::addColumn<QString>("reply");
        QTest::addColumn<QString>("markdown");
        QTest::newRow("a newline is a line break")
            << QStringLiteral("one\ntwo") << QStringLiteral("one  \ntwo");
        QTest::newRow("paragraphs stay")
            << QStringLiteral("one\n\ntwo") << QStringLiteral("one\n\ntwo");
        QTest::newRow("hard breaks already")
            << QStringLiteral("one  \ntwo\\\nthree") << QStringLiteral("one  \ntwo\\\nthree");
        QTest::newRow("fenced code untouched")
            << QStringLiteral("```sh\nmake\nmake test\n```\ndone")
            << QStringLiteral("```sh\nmake\nmake test\n```\ndone");
        QTest::newRow("a table right after a line")
            << QStringLiteral("Totals:\n| a | b |\n|---|:-:|\n| 1 | 2 |")
            << QStringLiteral("Totals:\n\n| a | b |  \n|---|:-:|  \n| 1 | 2 |");
    }
    void repliesReadAsInATerminal() {
        QFETCH(QString, reply);
        QFETCH(QString, markdown);
        QCOMPARE(replyAsMarkdown(reply), markdown);
    }
};

QTEST_GUILESS_MAIN(TestMonitorTranscript)
#include "tst_monitor_transcript.moc"
