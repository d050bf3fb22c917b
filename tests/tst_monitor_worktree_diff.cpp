// Core units of the Changes tab and the usage line, no service: a git patch
// cut into lines that know their file and worktree line (renames, new and deleted files, binary
// files, quoted paths, "\ No newline"), and how usage, budgets, a released process, a
// sandbox and a connection it refused read.

#include "core/SandboxText.h"
#include "core/UsageText.h"
#include "core/WorktreeDiff.h"
#include "protocol/SandboxNames.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace flotilla::monitor;
using Kind = DiffLine::Kind;

class TestMonitorWorktreeDiff final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void linesKnowTheirFileAndLine() {
        const QString patch = QStringLiteral("diff --git a/shared.txt b/shared.txt\n"
                                             "index 814f4a4..1b2c3d4 100644\n"
                                             "--- a/shared.txt\n"
                                             "+++ b/shared.txt\n"
                                             "@@ -1,3 +1,4 @@\n"
                                             " one\n"
                                             "-two\n"
                                             "+two (alpha)\n"
                                             "+two and a half\n"
                                             " three\n"
                                             "@@ -10 +11 @@ fn\n"
                                             "-ten\n"
                                             "+TEN\n"
                                             "\\ No newline at end of file\n"
                                             "diff --git a/gone.txt b/gone.txt\n"
                                             "deleted file mode 100644\n"
                                             "--- a/gone.txt\n"
                                             "+++ /dev/null\n"
                                             "@@ -1 +0,0 @@\n"
                                             "-bye\n"
                                             "diff --git a/img.png b/img.png\n"
                                             "new file mode 100644\n"
                                             "Binary files /dev/null and b/img.png differ\n");
        const QList<PatchLine> l = parsePatch(patch);
        QCOMPARE(l.size(), 18);
        QCOMPARE(l[0].kind, Kind::File);
        QCOMPARE(l[0].text, QStringLiteral("shared.txt"));
        QCOMPARE(l[1].kind, Kind::Hunk);
        QCOMPARE(l[2].kind, Kind::Context);
        QCOMPARE(l[2].line, 1);
        QCOMPARE(l[3].kind, Kind::Removed);
        QCOMPARE(l[3].line, 0); // not in the worktree: no comment on it
        QCOMPARE(l[4].kind, Kind::Added);
        QCOMPARE(l[4].text, QStringLiteral("two (alpha)"));
        QCOMPARE(l[4].line, 2);
        QCOMPARE(l[5].line, 3);
        QCOMPARE(l[6].line, 4); // " three"
        QCOMPARE(l[8].kind, Kind::Removed);
        QCOMPARE(l[9].line, 11); // the second hunk starts at +11
        QCOMPARE(l[10].line, 0); // "\ No newline"
        QCOMPARE(l[11].path, QStringLiteral("gone.txt"));
        QCOMPARE(l[14].kind, Kind::Removed); // "-bye"
        QCOMPARE(l[14].path, QStringLiteral("gone.txt"));
        QCOMPARE(l[16].kind, Kind::File); // "new file mode" of img.png
        QCOMPARE(l[16].path, QStringLiteral("img.png"));
        QVERIFY(l[17].text.startsWith(QStringLiteral("Binary files")));
        for (const PatchLine &p : l.mid(0, 11))
            QCOMPARE(p.path, QStringLiteral("shared.txt"));
    }

    void renamesAndQuotedPaths() {
        const QList<PatchLine> l =
            parsePatch(QStringLiteral("diff --git a/old name.c b/new name.c\n"
                                      "similarity index 90%\n"
                                      "rename from old name.c\n"
                                      "rename to new name.c\n"
                                      "diff --git \"a/tab\\there.txt\" \"b/tab\\there.txt\"\n"
                                      "--- \"a/tab\\there.txt\"\n"
                                      "+++ \"b/tab\\there.txt\"\n"
                                      "@@ -1 +1 @@\n"
                                      "-a\n"
                                      "+b\n"));
        QCOMPARE(l[0].path, QStringLiteral("new name.c"));
        QCOMPARE(l[3].path, QStringLiteral("new name.c"));
        QCOMPARE(l.last().path, QStringLiteral("tab\there.txt"));
        QCOMPARE(l.last().line, 1);
    }

    void fromJsonAndFilter() {
        const QJsonObject json{
            {QStringLiteral("baseCommit"), QStringLiteral("abc")},
            {QStringLiteral("branch"), QStringLiteral("flotilla/a")},
            {QStringLiteral("truncated"), true},
            {QStringLiteral("files"),
             QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("a.txt")},
                                    {QStringLiteral("status"), QStringLiteral("added")},
                                    {QStringLiteral("additions"), 2},
                                    {QStringLiteral("deletions"), 0}},
                        QJsonObject{{QStringLiteral("path"), QStringLiteral("b.bin")},
                                    {QStringLiteral("status"), QStringLiteral("modified")},
                                    {QStringLiteral("binary"), true}}}},
            {QStringLiteral("patch"),
             QStringLiteral("diff --git a/a.txt b/a.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"
                            "diff --git a/b.bin b/b.bin\nBinary files a/b.bin and b/b.bin "
                            "differ\n")}};
        const WorktreeDiff d = WorktreeDiff::fromJson(json);
        QCOMPARE(d.branch, QStringLiteral("flotilla/a"));
        QVERIFY(d.truncated);
        QCOMPARE(d.files.size(), 2);
        QVERIFY(d.files[1].binary);
        QCOMPARE(d.additions(), 2);
        QCOMPARE(d.linesOf(QStringLiteral("a.txt")).size(), 4);
        QCOMPARE(d.linesOf(QStringLiteral("b.bin")).size(), 2);
        QCOMPARE(d.linesOf({}).size(), 6);
    }

    void usageReads() {
        QJsonObject a{{QStringLiteral("status"), QStringLiteral("idle")}};
        QCOMPARE(usageCell(a), QString());
        QCOMPARE(usageLine(a), QString());
        a.insert(QStringLiteral("usage"), QJsonObject{{QStringLiteral("turns"), 3},
                                                      {QStringLiteral("inputTokens"), 10400},
                                                      {QStringLiteral("outputTokens"), 1600},
                                                      {QStringLiteral("cacheReadTokens"), 900},
                                                      {QStringLiteral("costUsd"), 0.01234}});
        QCOMPARE(usageCell(a), QStringLiteral("$0.0123 \u00b7 12k tok"));
        QCOMPARE(usageLine(a), QStringLiteral("3 turn(s) \u00b7 10k in \u00b7 2k out \u00b7 900 "
                                              "cache read \u00b7 $0.0123"));
        QCOMPARE(budgetLine(a), QString());
        a.insert(QStringLiteral("budget"),
                 QJsonObject{{QStringLiteral("costUsd"), 2.5},
                             {QStringLiteral("tokens"), 50000},
                             {QStringLiteral("period"), QStringLiteral("day")}});
        QCOMPARE(budgetLine(a), QStringLiteral("budget $2.50 / 50k tokens per day"));
        a.insert(QStringLiteral("lastError"), QStringLiteral("Budget reached: agent 'x' used ..."));
        QCOMPARE(budgetLine(a), QStringLiteral("budget $2.50 / 50k tokens per day (reached)"));
        QCOMPARE(compactTokens(1250000), QStringLiteral("1.3M"));
    }

    void releasedProcess() {
        QJsonObject a{{QStringLiteral("status"), QStringLiteral("idle")},
                      {QStringLiteral("isProcessRunning"), false}};
        QCOMPARE(processLine(a), QString()); // never ran: nothing released
        a.insert(QStringLiteral("sessionId"), QStringLiteral("s1"));
        QVERIFY(processLine(a).startsWith(QStringLiteral("process released")));
        a.insert(QStringLiteral("isProcessRunning"), true);
        QCOMPARE(processLine(a), QString());
    }

    // Its own sandbox reads as it is whatever the service's default: off says so; workspace
    // names its network, the details list the hosts and paths. Null reads as the default for its
    // permission mode, marked "(default)": the service's for auto agents (nothing while unknown),
    // none for ask agents. A refused write gets its hint only when sandboxed.
    void sandboxReads() {
        namespace sbk = flotilla::wire::sandbox::key;
        namespace sbm = flotilla::wire::sandbox::mode;
        namespace sbn = flotilla::wire::sandbox::network;
        const QString workspace(sbm::Workspace);
        const QString off(sbm::Off);
        QJsonObject a{{QStringLiteral("status"), QStringLiteral("idle")},
                      {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                      {QString(sbk::Sandbox), QJsonValue()}};
        QCOMPARE(sandboxLine(a, {}), QString()); // the service's default not known (yet)
        QCOMPARE(sandboxDetails(a, {}), QString());
        QVERIFY(!isSandboxed(a, {}));
        QCOMPARE(sandboxLine(a, workspace),
                 QStringLiteral("sandbox: workspace (default) \u00b7 network full"));
        QCOMPARE(sandboxDetails(a, workspace),
                 QStringLiteral("Sandbox workspace (the service's default for auto agents): "
                                "commands write only in the agent's working directory.\n"
                                "Network: full"));
        QVERIFY(isSandboxed(a, workspace));
        QCOMPARE(sandboxLine(a, off), QStringLiteral("no sandbox (default)"));
        QCOMPARE(sandboxDetails(a, off),
                 QStringLiteral("No sandbox (the service's default for auto agents): the agent's "
                                "commands run unconfined."));
        QVERIFY(!isSandboxed(a, off));
        // An ask agent: no sandbox by default, whatever the service's default for auto agents.
        a.insert(QStringLiteral("permissionMode"), QStringLiteral("ask"));
        for (const QString &serviceDefault : {QString(), workspace}) {
            QCOMPARE(sandboxLine(a, serviceDefault), QStringLiteral("no sandbox (default)"));
            QCOMPARE(sandboxDetails(a, serviceDefault),
                     QStringLiteral("No sandbox (the default for ask agents): the agent's "
                                    "commands run unconfined."));
            QVERIFY(!isSandboxed(a, serviceDefault));
        }

        a.insert(sbk::Sandbox, QJsonObject{{sbk::Mode, sbm::Off}, {sbk::Network, sbn::Full}});
        a.insert(QStringLiteral("permissionMode"), QStringLiteral("auto"));
        QCOMPARE(sandboxLine(a, workspace), QStringLiteral("no sandbox"));
        QVERIFY(sandboxDetails(a, workspace).startsWith(QStringLiteral("No sandbox (mode off)")));
        QVERIFY(!isSandboxed(a, workspace));

        a.insert(sbk::Sandbox, QJsonObject{{sbk::Mode, sbm::Workspace}, {sbk::Network, sbn::Full}});
        QCOMPARE(sandboxLine(a, off), QStringLiteral("sandbox: workspace \u00b7 network full"));
        QCOMPARE(sandboxDetails(a, off),
                 QStringLiteral("Sandbox workspace: commands write only in the agent's working "
                                "directory.\nNetwork: full"));
        QVERIFY(isSandboxed(a, off));

        a.insert(sbk::Sandbox,
                 QJsonObject{{sbk::Mode, sbm::Workspace},
                             {sbk::Network, sbn::Allowlist},
                             {sbk::AllowHosts, QJsonArray{QStringLiteral("api.example.com"),
                                                          QStringLiteral("pypi.org:443")}},
                             {sbk::Writable, QJsonArray{QStringLiteral("/srv/cache")}},
                             {sbk::Hidden, QJsonArray{QStringLiteral("/srv/keys")}}});
        QCOMPARE(sandboxLine(a, {}),
                 QStringLiteral("sandbox: workspace \u00b7 network allowlist (2 host(s))"));
        const QStringList details = sandboxDetails(a, {}).split(u'\n');
        QCOMPARE(details.size(), 4);
        QCOMPARE(details[1], QStringLiteral("Network: allowlist: api.example.com, pypi.org:443"));
        QCOMPARE(details[2], QStringLiteral("Also writable: /srv/cache"));
        QCOMPARE(details[3], QStringLiteral("Hidden: /srv/keys"));

        const QString refused =
            QStringLiteral("touch: cannot touch '/etc/x': Read-only file system\noutside-rc=1");
        QVERIFY(sandboxHint(true, refused).contains(QStringLiteral("working directory")));
        QCOMPARE(sandboxHint(false, refused), QString());
        QCOMPARE(sandboxHint(true, QStringLiteral("touch: Permission denied")), QString());
    }

    // A connection an allow-list refused (sandbox_blocked): host:port (an IPv6 host bracketed),
    // the conversation's line with its count from the second time, the tooltip's tally.
    void sandboxBlockedReads() {
        QCOMPARE(hostPort(QStringLiteral("127.0.0.1"), 43351), QStringLiteral("127.0.0.1:43351"));
        QCOMPARE(hostPort(QStringLiteral("::1"), 443), QStringLiteral("[::1]:443"));
        QCOMPARE(hostPort(QStringLiteral("[::1]"), 443), QStringLiteral("[::1]:443"));
        QCOMPARE(hostPort(QStringLiteral("github.com"), 443), QStringLiteral("github.com:443"));
        const QString where = QStringLiteral("127.0.0.1:43351");
        QCOMPARE(sandboxBlockedLine(where, 1),
                 QStringLiteral("Sandbox blocked a connection to 127.0.0.1:43351 (not on this "
                                "agent's allow-list)"));
        QCOMPARE(sandboxBlockedLine(where, 3),
                 QStringLiteral("Sandbox blocked a connection to 127.0.0.1:43351 (not on this "
                                "agent's allow-list) (3 times)"));
        QCOMPARE(sandboxBlockedTally(0, {}), QString());
        QCOMPARE(sandboxBlockedTally(2, where),
                 QStringLiteral("Sandbox blocked 2 connection(s) while this monitor watched "
                                "(last: 127.0.0.1:43351)"));
    }
};

QTEST_GUILESS_MAIN(TestMonitorWorktreeDiff)
#include "tst_monitor_worktree_diff.moc"
