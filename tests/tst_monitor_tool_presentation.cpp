// How tool calls read in the conversation, as pure units: one-line summaries of
// Claude Code's and Codex's tools, MCP tools' titles and argument lines ("Flotilla ·
// report_task") and their failed results, and the diffs of file changes (Edit, MultiEdit, Write,
// Codex fileChange) with context near the changes and a cap on long ones. No service, no widgets.

#include "core/ToolPresentation.h"
#include "core/TranscriptModel.h"
#include "protocol/HistoryNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QTest>

using namespace flotilla::monitor;
using DK = DiffLine::Kind;

Q_DECLARE_METATYPE(QList<DiffLine>)

class TestMonitorToolPresentation final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void toolSummaries_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("input");
        QTest::addColumn<QString>("summary");
        QTest::newRow("Bash") << QStringLiteral("Bash")
                              << QJsonObject{{QStringLiteral("command"),
                                              QStringLiteral("git status")}}
                              << QStringLiteral("git status");
        QTest::newRow("multi-line command")
            << QStringLiteral("Bash")
            << QJsonObject{{QStringLiteral("command"), QStringLiteral("cd src\nmake")}}
            << QStringLiteral("cd src \u2026");
        QTest::newRow("Codex argv")
            << QStringLiteral("commandExecution")
            << QJsonObject{{QStringLiteral("command"),
                            QJsonArray{QStringLiteral("ls"), QStringLiteral("-la")}}}
            << QStringLiteral("ls -la");
        QTest::newRow("Read") << QStringLiteral("Read")
                              << QJsonObject{{QStringLiteral("file_path"),
                                              QStringLiteral("/p/a.cpp")}}
                              << QStringLiteral("/p/a.cpp");
        QTest::newRow("Grep") << QStringLiteral("Grep")
                              << QJsonObject{{QStringLiteral("pattern"), QStringLiteral("TODO")},
                                             {QStringLiteral("path"), QStringLiteral("src")}}
                              << QStringLiteral("TODO  in src");
        QTest::newRow("Glob") << QStringLiteral("Glob")
                              << QJsonObject{{QStringLiteral("pattern"), QStringLiteral("**/*.h")}}
                              << QStringLiteral("**/*.h");
        QTest::newRow("fileChange")
            << QStringLiteral("fileChange")
            << QJsonObject{{QStringLiteral("changes"),
                            QJsonArray{
                                QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")}},
                                QJsonObject{{QStringLiteral("path"), QStringLiteral("b.txt")}}}}}
            << QStringLiteral("a.txt, b.txt");
        QTest::newRow("unknown tool")
            << QStringLiteral("Frobnicate") << QJsonObject{{QStringLiteral("level"), 3}}
            << QStringLiteral("{\"level\":3}");
    }
    void toolSummaries() {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, input);
        QFETCH(QString, summary);
        QCOMPARE(toolSummary(tool, input), summary);
    }

    void mcpTools_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("input");
        QTest::addColumn<QString>("title");
        QTest::addColumn<QString>("summary");
        QTest::newRow("report_task")
            << QStringLiteral("mcp__flotilla__report_task")
            << QJsonObject{{QStringLiteral("status"), QStringLiteral("completed")},
                           {QStringLiteral("summary"),
                            QStringLiteral("Parser shipped\nTests pass, docs updated")}}
            << QStringLiteral("Flotilla \u00b7 report_task")
            << QStringLiteral("completed \u00b7 Parser shipped \u2026");
        QTest::newRow("notify")
            << QStringLiteral("mcp__flotilla__notify")
            << QJsonObject{{QStringLiteral("message"), QStringLiteral("All green")},
                           {QStringLiteral("title"), QStringLiteral("Build finished")}}
            << QStringLiteral("Flotilla \u00b7 notify") << QStringLiteral("Build finished");
        QTest::newRow("delegate")
            << QStringLiteral("mcp__flotilla__delegate")
            << QJsonObject{{QStringLiteral("agentName"), QStringLiteral("tester")},
                           {QStringLiteral("task"), QStringLiteral("Run the suite\nthen report")}}
            << QStringLiteral("Flotilla \u00b7 delegate")
            << QStringLiteral("tester: Run the suite \u2026");
        QTest::newRow("delegate by id")
            << QStringLiteral("mcp__flotilla__delegate")
            << QJsonObject{{QStringLiteral("agentId"), QStringLiteral("a-7")},
                           {QStringLiteral("task"), QStringLiteral("Review the diff")}}
            << QStringLiteral("Flotilla \u00b7 delegate") << QStringLiteral("a-7: Review the diff");
        QTest::newRow("spawn_agent")
            << QStringLiteral("mcp__flotilla__spawn_agent")
            << QJsonObject{{QStringLiteral("class"), QStringLiteral("builder")},
                           {QStringLiteral("name"), QStringLiteral("helper-2")}}
            << QStringLiteral("Flotilla \u00b7 spawn_agent") << QStringLiteral("helper-2");
        QTest::newRow("no arguments") << QStringLiteral("mcp__flotilla__whoami") << QJsonObject()
                                      << QStringLiteral("Flotilla \u00b7 whoami") << QString();
        QTest::newRow("another server's tool")
            << QStringLiteral("mcp__github__create_issue")
            << QJsonObject{{QStringLiteral("labels"), QJsonArray{QStringLiteral("bug")}},
                           {QStringLiteral("title"), QStringLiteral("Crash on start")}}
            << QStringLiteral("github \u00b7 create_issue") << QStringLiteral("Crash on start");
        QTest::newRow("a tool name with __")
            << QStringLiteral("mcp__db__query__raw")
            << QJsonObject{{QStringLiteral("sql"), QStringLiteral("select 1")}}
            << QStringLiteral("db \u00b7 query__raw") << QStringLiteral("select 1");
        QTest::newRow("not an MCP name")
            << QStringLiteral("mcp__flotilla") << QJsonObject{{QStringLiteral("n"), 1}}
            << QStringLiteral("mcp__flotilla") << QStringLiteral("{\"n\":1}");
        QTest::newRow("Codex command") << QStringLiteral("commandExecution") << QJsonObject()
                                       << QStringLiteral("Command") << QString();
    }
    void mcpTools() {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, input);
        QFETCH(QString, title);
        QFETCH(QString, summary);
        QCOMPARE(toolTitle(tool), title);
        QCOMPARE(toolSummary(tool, input), summary);
    }

    void mcpToolErrorIsAFailedRow_data() {
        QTest::addColumn<bool>("isError");
        QTest::newRow("error result") << true;
        QTest::newRow("result") << false;
    }
    void mcpToolErrorIsAFailedRow() {
        // The result chunk of a call the tool answered with isError (MCP) / is_error (Claude).
        QFETCH(bool, isError);
        namespace k = flotilla::wire::key;
        const QString tool = QStringLiteral("mcp__flotilla__report_task");
        const QString agent = QStringLiteral("a1");
        TranscriptModel model;
        model.appendChunk(
            {{k::AgentId, agent},
             {k::ToolName, tool},
             {k::ToolInput, QJsonObject{{QStringLiteral("status"), QStringLiteral("done")}}}});
        QJsonObject result{
            {k::AgentId, agent},
            {k::ToolName, tool},
            {k::ToolOutput, QStringLiteral("status must be one of: completed, failed")}};
        if (isError)
            result.insert(flotilla::wire::history::key::IsError, true);
        model.appendChunk(result);
        QCOMPARE(model.rowCount(), 1);
        const TranscriptEntry &row = model.entry(0);
        QVERIFY(row.hasInput && row.hasResult);
        QCOMPARE(row.toolOutput, QStringLiteral("status must be one of: completed, failed"));
        QCOMPARE(row.isError, isError);
    }

    void diffs_data() {
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QJsonObject>("input");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QList<DiffLine>>("lines");
        QTest::newRow("Edit")
            << QStringLiteral("Edit")
            << QJsonObject{{QStringLiteral("file_path"), QStringLiteral("/p/a.c")},
                           {QStringLiteral("old_string"), QStringLiteral("a\nb\nc\n")},
                           {QStringLiteral("new_string"), QStringLiteral("a\nB\nc\nd\n")}}
            << QString()
            << QList<DiffLine>{
                   {DK::File, QStringLiteral("/p/a.c")}, {DK::Context, QStringLiteral("a")},
                   {DK::Removed, QStringLiteral("b")},   {DK::Added, QStringLiteral("B")},
                   {DK::Context, QStringLiteral("c")},   {DK::Added, QStringLiteral("d")}};
        QTest::newRow("Write")
            << QStringLiteral("Write")
            << QJsonObject{{QStringLiteral("file_path"), QStringLiteral("/p/n.txt")},
                           {QStringLiteral("content"), QStringLiteral("one\ntwo")}}
            << QString()
            << QList<DiffLine>{{DK::File, QStringLiteral("/p/n.txt")},
                               {DK::Added, QStringLiteral("one")},
                               {DK::Added, QStringLiteral("two")}};
        QTest::newRow("MultiEdit")
            << QStringLiteral("MultiEdit")
            << QJsonObject{{QStringLiteral("file_path"), QStringLiteral("/p/m.c")},
                           {QStringLiteral("edits"),
                            QJsonArray{
                                QJsonObject{{QStringLiteral("old_string"), QStringLiteral("x")},
                                            {QStringLiteral("new_string"), QStringLiteral("y")}}}}}
            << QString()
            << QList<DiffLine>{{DK::File, QStringLiteral("/p/m.c")},
                               {DK::Hunk, QStringLiteral("@@ edit 1 of 1")},
                               {DK::Removed, QStringLiteral("x")},
                               {DK::Added, QStringLiteral("y")}};
        QTest::newRow("Codex update")
            << QStringLiteral("fileChange")
            << QJsonObject{{QStringLiteral("changes"),
                            QJsonArray{
                                QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")},
                                            {QStringLiteral("kind"),
                                             QJsonObject{{QStringLiteral("type"),
                                                          QStringLiteral("update")}}}}}}}
            << QStringLiteral("@@ -1,2 +1,2 @@\n keep\n-old\n+new\n")
            << QList<DiffLine>{{DK::File, QStringLiteral("a.txt (update)")},
                               {DK::Hunk, QStringLiteral("@@ -1,2 +1,2 @@")},
                               {DK::Context, QStringLiteral("keep")},
                               {DK::Removed, QStringLiteral("old")},
                               {DK::Added, QStringLiteral("new")}};
        QTest::newRow("Codex add")
            << QStringLiteral("fileChange")
            << QJsonObject{{QStringLiteral("changes"),
                            QJsonArray{QJsonObject{
                                {QStringLiteral("path"), QStringLiteral("n.txt")},
                                {QStringLiteral("kind"),
                                 QJsonObject{{QStringLiteral("type"), QStringLiteral("add")}}}}}}}
            << QStringLiteral("hello\n")
            << QList<DiffLine>{{DK::File, QStringLiteral("n.txt (add)")},
                               {DK::Added, QStringLiteral("hello")}};
        QTest::newRow("not a file tool")
            << QStringLiteral("Bash") << QJsonObject() << QString() << QList<DiffLine>{};
    }
    void diffs() {
        QFETCH(QString, tool);
        QFETCH(QJsonObject, input);
        QFETCH(QString, output);
        QFETCH(QList<DiffLine>, lines);
        QVERIFY(isFileChangeTool(tool) == !lines.isEmpty());
        QCOMPARE(toolDiff(tool, input, output), lines);
    }

    void longDiffsKeepContextNearChanges() {
        QStringList before;
        for (int i = 0; i < 30; ++i)
            before << QStringLiteral("line %1").arg(i);
        QStringList after = before;
        after[15] = QStringLiteral("changed");
        const QList<DiffLine> d =
            lineDiff(before.join(QLatin1Char('\n')), after.join(QLatin1Char('\n')));
        // "@@" (lines 0-11 skipped), 3 context, -, +, 3 context; the unchanged rest left out.
        QCOMPARE(d.size(), 9);
        QCOMPARE(d.first().kind, DK::Hunk);
        QCOMPARE(d[1].text, QStringLiteral("line 12"));
        QCOMPARE(d[4], (DiffLine{DK::Removed, QStringLiteral("line 15")}));
        QCOMPARE(d[5], (DiffLine{DK::Added, QStringLiteral("changed")}));
        QCOMPARE(d.last(), (DiffLine{DK::Context, QStringLiteral("line 18")}));
        // A huge write is cut, and says how much is left out.
        const QList<DiffLine> big =
            toolDiff(QStringLiteral("Write"),
                     {{QStringLiteral("file_path"), QStringLiteral("/big")},
                      {QStringLiteral("content"), QString(QStringLiteral("x\n")).repeated(1000)}},
                     {});
        QCOMPARE(big.size(), kMaxDiffLines + 1);
        QCOMPARE(big.last().text, QStringLiteral("\u2026 601 more lines"));
    }
};

QTEST_GUILESS_MAIN(TestMonitorToolPresentation)
#include "tst_monitor_tool_presentation.moc"
