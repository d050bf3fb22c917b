// The monitor's models as pure units: OutputModel (delta merging, line splitting, tool entries,
// the bound), AgentsModel (snapshot diffing, per-cell dataChanged), the list models, history
// conversion and the reconnection backoff. No service needed.

#include "client/ServiceClient.h"
#include "core/AgentsModel.h"
#include "core/HistoryConvert.h"
#include "core/ListModels.h"
#include "core/OutputModel.h"
#include "protocol/ExecNames.h"
#include "protocol/WireNames.h"

#include <QSignalSpy>
#include <QTest>

using namespace flotilla::monitor;
namespace k = flotilla::wire::key;

namespace {

QJsonObject delta(const QString &text) {
    return {{k::AgentId, QStringLiteral("a1")},
            {k::Text, text},
            {k::IsStreaming, true},
            {k::Timestamp, 1000}};
}

QJsonObject finalChunk(const QString &text = {}) {
    return {{k::AgentId, QStringLiteral("a1")},
            {k::Text, text},
            {k::IsStreaming, false},
            {k::Timestamp, 2000}};
}

QStringList texts(const OutputModel &m) {
    QStringList out;
    for (int row = 0; row < m.rowCount(); ++row)
        out << m.index(row).data().toString();
    return out;
}

QJsonObject agentJson(const QString &id, const QString &name, const QString &status = {}) {
    return {{k::Id, id},
            {k::Name_, name},
            {k::Class, QStringLiteral("builder")},
            {k::Status, status.isEmpty() ? QStringLiteral("idle") : status},
            {k::CurrentTool, QString()},
            {k::ContextUsed, 0},
            {k::ContextLimit, 200000},
            {k::TokensUsed, 0}};
}

} // namespace

class TestMonitorModels final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deltasMergeAndSplit_data() {
        QTest::addColumn<QStringList>("deltas");
        QTest::addColumn<QStringList>("lines");
        QTest::addColumn<bool>("lastOpen");
        QTest::newRow("one word in pieces")
            << QStringList{QStringLiteral("Hel"), QStringLiteral("lo")}
            << QStringList{QStringLiteral("Hello")} << true;
        QTest::newRow("newline inside a delta")
            << QStringList{QStringLiteral("Hel"), QStringLiteral("lo\nwor"), QStringLiteral("ld")}
            << QStringList{QStringLiteral("Hello"), QStringLiteral("world")} << true;
        QTest::newRow("blank line")
            << QStringList{QStringLiteral("a\n\nb")}
            << QStringList{QStringLiteral("a"), QString(), QStringLiteral("b")} << true;
        QTest::newRow("newlines as their own deltas")
            << QStringList{QStringLiteral("a\n"), QStringLiteral("\n"), QStringLiteral("b")}
            << QStringList{QStringLiteral("a"), QString(), QStringLiteral("b")} << true;
        QTest::newRow("trailing newline closes the line")
            << QStringList{QStringLiteral("done\n")} << QStringList{QStringLiteral("done")}
            << false;
    }
    void deltasMergeAndSplit() {
        QFETCH(QStringList, deltas);
        QFETCH(QStringList, lines);
        QFETCH(bool, lastOpen);
        OutputModel m;
        for (const QString &d : deltas)
            m.appendChunk(delta(d));
        QCOMPARE(texts(m), lines);
        QCOMPARE(m.index(m.rowCount() - 1).data(OutputModel::OpenRole).toBool(), lastOpen);
    }

    void deltaContinuingALineIsDataChanged() {
        OutputModel m;
        m.appendChunk(delta(QStringLiteral("Hel")));
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.appendChunk(delta(QStringLiteral("lo")));
        QCOMPARE(inserted.count(), 0);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex().row(), 0);
    }

    void finalChunkClosesTheTurn() {
        OutputModel m;
        m.appendChunk(delta(QStringLiteral("first turn")));
        m.appendChunk(finalChunk());
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.index(0).data(OutputModel::OpenRole).toBool(), false);
        m.appendChunk(delta(QStringLiteral("second turn")));
        QCOMPARE(texts(m),
                 QStringList({QStringLiteral("first turn"), QStringLiteral("second turn")}));
        m.appendChunk(finalChunk(QStringLiteral("Error: the model API failed")));
        m.appendChunk(finalChunk(QStringLiteral("[stopped]")));
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.index(2).data(OutputModel::KindRole).toInt(), int(OutputEntry::Error));
        QCOMPARE(m.index(3).data(OutputModel::KindRole).toInt(), int(OutputEntry::Info));
    }

    void toolCallsAndResultsAreEntriesOfTheirOwn() {
        OutputModel m;
        m.appendChunk(delta(QStringLiteral("Let me look")));
        QJsonObject use = delta(QString());
        use.insert(k::ToolName, QStringLiteral("Bash"));
        use.insert(k::ToolInput, QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}});
        m.appendChunk(use);
        QJsonObject result = delta(QString());
        result.insert(k::ToolName, QStringLiteral("Bash"));
        result.insert(k::ToolOutput, QStringLiteral("a.txt\nb.txt\n"));
        m.appendChunk(result);
        m.appendChunk(delta(QStringLiteral("Two files.")));
        QCOMPARE(texts(m),
                 QStringList({QStringLiteral("Let me look"),
                              QStringLiteral("Bash  {\"command\":\"ls\"}"), QStringLiteral("a.txt"),
                              QStringLiteral("b.txt"), QStringLiteral("Two files.")}));
        QCOMPARE(m.index(0).data(OutputModel::OpenRole).toBool(), false); // closed by the tool
        QCOMPARE(m.index(1).data(OutputModel::KindRole).toInt(), int(OutputEntry::ToolCall));
        QCOMPARE(m.index(1).data(OutputModel::ToolNameRole).toString(), QStringLiteral("Bash"));
        QCOMPARE(m.index(2).data(OutputModel::KindRole).toInt(), int(OutputEntry::ToolResult));
        QCOMPARE(m.index(4).data(OutputModel::KindRole).toInt(), int(OutputEntry::Text));
    }

    void longToolResultIsCut() {
        OutputModel m;
        QStringList lines;
        for (int i = 0; i < OutputModel::kMaxToolResultLines + 50; ++i)
            lines << QString::number(i);
        QJsonObject result = delta(QString());
        result.insert(k::ToolName, QStringLiteral("Read"));
        result.insert(k::ToolOutput, lines.join(QLatin1Char('\n')));
        m.appendChunk(result);
        QCOMPARE(m.rowCount(), OutputModel::kMaxToolResultLines + 1);
        QCOMPARE(m.index(m.rowCount() - 1).data().toString(), QStringLiteral("... 50 more lines"));
    }

    void capacityIsRespected_data() {
        QTest::addColumn<bool>("oneDelta");
        QTest::newRow("10,000 lines in one delta") << true;
        QTest::newRow("10,000 lines, one delta each") << false;
    }
    void capacityIsRespected() {
        QFETCH(bool, oneDelta);
        OutputModel m(100);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QString all;
        for (int i = 0; i < 10000; ++i) {
            const QString line = QStringLiteral("line %1\n").arg(i);
            if (oneDelta)
                all += line;
            else
                m.appendChunk(delta(line));
        }
        if (oneDelta)
            m.appendChunk(delta(all));
        QCOMPARE(m.rowCount(), 100);
        QCOMPARE(m.capacity(), 100);
        QCOMPARE(m.droppedCount(), 9900);
        QCOMPARE(m.index(0).data().toString(), QStringLiteral("line 9900"));
        QCOMPARE(m.index(99).data().toString(), QStringLiteral("line 9999"));
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.isEmpty(), oneDelta);
    }

    void historyIsPrependedWithinCapacity() {
        OutputModel m(5);
        m.appendChunk(delta(QStringLiteral("live 1\nlive 2\n")));
        QList<OutputEntry> older;
        for (int i = 0; i < 4; ++i) {
            OutputEntry e;
            e.text = QStringLiteral("old %1").arg(i);
            older.append(e);
        }
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        m.prependHistory(older);
        // Three fit: the newest three of the page, oldest first, above the live lines.
        QCOMPARE(texts(m), QStringList({QStringLiteral("old 1"), QStringLiteral("old 2"),
                                        QStringLiteral("old 3"), QStringLiteral("live 1"),
                                        QStringLiteral("live 2")}));
        QCOMPARE(inserted.count(), 1);
        QCOMPARE(inserted.at(0).at(1).toInt(), 0);
        m.prependHistory(older); // full: nothing more
        QCOMPARE(m.rowCount(), 5);
    }

    void historyEntriesBecomeLines() {
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
                {k::ToolInput, QJsonObject{{QStringLiteral("command"), QStringLiteral("ls")}}},
                {QStringLiteral("content"), QString()}},
            QJsonObject{{k::Type, QStringLiteral("tool_result")},
                        {QStringLiteral("content"), QStringLiteral("no such file")},
                        {QStringLiteral("isError"), true}},
            QJsonObject{{k::Type, QStringLiteral("assistant")},
                        {QStringLiteral("content"), QStringLiteral("sub-agent text")},
                        {QStringLiteral("isSubagent"), true}},
        };
        const QList<OutputEntry> e = entriesFromHistory(messages);
        QCOMPARE(e.size(), 5);
        QCOMPARE(e[0].text, QStringLiteral("> run ls"));
        QCOMPARE(e[0].kind, OutputEntry::Info);
        QCOMPARE(e[0].timestamp, 10);
        QCOMPARE(e[1].text, QStringLiteral("Sure."));
        QCOMPARE(e[2].text, QStringLiteral("Running it."));
        QCOMPARE(e[3].kind, OutputEntry::ToolCall);
        QCOMPARE(e[3].text, QStringLiteral("Bash  {\"command\":\"ls\"}"));
        QCOMPARE(e[4].kind, OutputEntry::Error);
    }

    void snapshotIsDiffedNotReset() {
        AgentsModel m;
        QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
        QSignalSpy inserted(&m, &QAbstractItemModel::rowsInserted);
        QSignalSpy removed(&m, &QAbstractItemModel::rowsRemoved);
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta")),
                         agentJson(QStringLiteral("c"), QStringLiteral("gamma"))});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(inserted.count(), 1);
        // The same snapshot again (a reconnect with nothing new): not a single signal.
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta")),
                         agentJson(QStringLiteral("c"), QStringLiteral("gamma"))});
        QCOMPARE(inserted.count() + removed.count() + changed.count(), 1);
        // b gone, c working, d new.
        m.applySnapshot(
            {agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
             agentJson(QStringLiteral("c"), QStringLiteral("gamma"), QStringLiteral("working")),
             agentJson(QStringLiteral("d"), QStringLiteral("delta"))});
        QCOMPARE(reset.count(), 0);
        QCOMPARE(removed.count(), 1);
        QCOMPARE(inserted.count(), 2);
        QCOMPARE(changed.count(), 1);
        const QModelIndex tl = changed.at(0).at(0).toModelIndex();
        const QModelIndex br = changed.at(0).at(1).toModelIndex();
        QCOMPARE(tl.row(), m.rowOf(QStringLiteral("c")));
        QCOMPARE(tl.column(), int(AgentsModel::Status));
        QCOMPARE(br.column(), int(AgentsModel::Status));
        QCOMPARE(m.agentIds(),
                 QStringList({QStringLiteral("a"), QStringLiteral("c"), QStringLiteral("d")}));
        QCOMPARE(m.rowOf(QStringLiteral("d")), 2);
    }

    void updatesSignalOnlyTheAffectedCells() {
        AgentsModel m;
        m.applySnapshot({agentJson(QStringLiteral("a"), QStringLiteral("alpha")),
                         agentJson(QStringLiteral("b"), QStringLiteral("beta"))});
        QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
        m.applyChanges(QStringLiteral("b"), {{k::Id, QStringLiteral("b")},
                                             {k::Name_, QStringLiteral("beta")},
                                             {k::CurrentTool, QStringLiteral("Bash")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(1, AgentsModel::CurrentTool));
        QCOMPARE(changed.at(0).at(1).toModelIndex(), m.index(1, AgentsModel::CurrentTool));
        QCOMPARE(m.index(1, AgentsModel::CurrentTool).data().toString(), QStringLiteral("Bash"));

        changed.clear();
        m.setContext(QStringLiteral("a"), 50000, 200000);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Context));
        QCOMPARE(m.index(0, 0).data(AgentsModel::ContextFractionRole).toDouble(), 0.25);
        QCOMPARE(m.index(0, AgentsModel::Context).data().toString(),
                 QStringLiteral("50k / 200k (25%)"));

        changed.clear(); // an invisible key: one signal, for the JSON role only
        m.applyChanges(QStringLiteral("a"), {{k::TokensUsed, 99}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(2).value<QList<int>>(), QList<int>{AgentsModel::AgentJsonRole});

        changed.clear(); // nothing new: silence; unknown agent: ignored
        m.applyChanges(QStringLiteral("a"), {{k::TokensUsed, 99}});
        m.applyChanges(QStringLiteral("zzz"), {{k::Status, QStringLiteral("error")}});
        QCOMPARE(changed.count(), 0);

        // Which CLI runs an agent, and its model, has a column of its own.
        changed.clear();
        m.applyChanges(QStringLiteral("a"), {{k::Provider, QStringLiteral("codex")},
                                             {k::Model, QStringLiteral("gpt-5-codex")}});
        QCOMPARE(changed.count(), 1);
        QCOMPARE(changed.at(0).at(0).toModelIndex(), m.index(0, AgentsModel::Provider));
        QCOMPARE(m.index(0, AgentsModel::Provider).data().toString(),
                 QStringLiteral("codex \u00b7 gpt-5-codex"));
        QCOMPARE(m.headerData(AgentsModel::Provider, Qt::Horizontal).toString(),
                 QStringLiteral("Provider"));

        m.remove(QStringLiteral("a"));
        QCOMPARE(m.rowOf(QStringLiteral("b")), 0);
        QCOMPARE(m.agentIdAt(0), QStringLiteral("b"));
        QCOMPARE(m.rowOf(QStringLiteral("a")), -1);
    }

    void listModelKeepsTheNewest() {
        JsonListModel m(QStringLiteral("id"), 3);
        for (int i = 0; i < 5; ++i)
            m.prepend({{k::Id, QString::number(i)}, {k::Title, QStringLiteral("t%1").arg(i)}});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.item(0).value(k::Id).toString(), QStringLiteral("4"));
        QCOMPARE(m.rowOf(QStringLiteral("1")), -1);
        // A replayed item merges instead of duplicating.
        m.prepend({{k::Id, QStringLiteral("3")}, {k::Message, QStringLiteral("again")}});
        QCOMPARE(m.rowCount(), 3);
        QCOMPARE(m.itemById(QStringLiteral("3")).value(k::Message).toString(),
                 QStringLiteral("again"));
        QCOMPARE(m.index(0).data(JsonListModel::IdRole).toString(), QStringLiteral("4"));
        m.remove(QStringLiteral("4"));
        QCOMPARE(m.rowCount(), 2);
    }

    void tasksKeepTheirOutputTail() {
        namespace ek = flotilla::wire::exec::key;
        TasksModel m;
        m.prepend({{ek::TaskId, QStringLiteral("t1")},
                   {k::AgentName, QStringLiteral("alpha")},
                   {ek::Command, QStringLiteral("make")},
                   {TasksModel::DoneKey, false}});
        QVERIFY(m.index(0).data().toString().contains(QStringLiteral("running")));
        const QString chunk(40 * 1024, QLatin1Char('x'));
        m.appendOutput(QStringLiteral("t1"), chunk);
        m.appendOutput(QStringLiteral("t1"), chunk + QStringLiteral("END"));
        const QString out = m.itemById(QStringLiteral("t1")).value(ek::Output).toString();
        QCOMPARE(out.size(), 64 * 1024);
        QVERIFY(out.endsWith(QStringLiteral("END")));
        m.update(QStringLiteral("t1"), {{TasksModel::DoneKey, true}, {ek::ExitCode, 2}});
        QVERIFY(m.index(0).data().toString().contains(QStringLiteral("exit 2")));
    }

    void backoffGrowsToTheCapWithJitter() {
        using flotilla::client::backoffDelayMs;
        QCOMPARE(backoffDelayMs(1, 500, 30000, 0.5), 500);
        QCOMPARE(backoffDelayMs(2, 500, 30000, 0.5), 1000);
        QCOMPARE(backoffDelayMs(3, 500, 30000, 0.5), 2000);
        QCOMPARE(backoffDelayMs(20, 500, 30000, 0.5), 30000);
        QCOMPARE(backoffDelayMs(1000, 500, 30000, 0.5), 30000);
        QCOMPARE(backoffDelayMs(1, 500, 30000, 0.0), 400);
        QCOMPARE(backoffDelayMs(20, 500, 30000, 1.0), 36000);
    }
};

QTEST_GUILESS_MAIN(TestMonitorModels)
#include "tst_monitor_session_models.moc"
