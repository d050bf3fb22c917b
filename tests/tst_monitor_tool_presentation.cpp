// How tool calls read in the conversation, as pure units: one-line summaries of
// Claude Code's and Codex's tools, and the diffs of file changes (Edit, MultiEdit, Write, Codex
// fileChange) with context near the changes and a cap on long ones. No service, no widgets.

#include "core/ToolPresentation.h"

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
