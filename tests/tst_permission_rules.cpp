// Standing permission rules, the matching itself (permissions/RuleMatcher): every row
// of docs/api.md's matching table. Commands by command-word prefix, never through shell control;
// file edits by path prefix after normalising and resolving symlinks, never outside the agent's
// working directory unless the rule names that place; other tools by name; scopes; deny wins;
// the rule a `remember` answer creates. Real files and symlinks in a temporary directory.

#include "agents/Provider.h"
#include "agents/claude/ClaudeProvider.h"
#include "agents/codex/CodexProvider.h"
#include "permissions/RuleMatcher.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace flotilla;

namespace {

PermissionRule rule(const QString &tool, const QString &pattern, bool allow = true) {
    PermissionRule r;
    r.id = QStringLiteral("r-") + tool;
    r.tool = tool;
    r.pattern = pattern;
    r.allow = allow;
    return r;
}

QJsonObject command(const QString &c) {
    return {{QStringLiteral("command"), c}};
}

QJsonObject write(const QString &path) {
    return {{QStringLiteral("file_path"), path}, {QStringLiteral("content"), QStringLiteral("x")}};
}

QJsonObject fileChange(const QStringList &paths) {
    QJsonArray changes;
    for (const QString &p : paths)
        changes.append(QJsonObject{{QStringLiteral("path"), p},
                                   {QStringLiteral("kind"), QStringLiteral("add")}});
    return {{QStringLiteral("changes"), changes}};
}

} // namespace

class TestPermissionRules final : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_cwd;     // the agent's working directory
    QString m_outside; // a directory beside it
    RuleSubject m_agent;
    // Which tools are commands and file edits: what the service's own providers declare.
    ProviderRegistry m_providers;

private Q_SLOTS:
    void initTestCase() {
        m_providers.add(std::make_unique<ClaudeProvider>(ClaudeConfig{}));
        m_providers.add(std::make_unique<CodexProvider>(CodexConfig{}));
        QVERIFY(m_tmp.isValid());
        const QString root = QFileInfo(m_tmp.path()).canonicalFilePath();
        m_cwd = root + QStringLiteral("/project");
        m_outside = root + QStringLiteral("/outside");
        QVERIFY(QDir().mkpath(m_cwd + QStringLiteral("/src/deep")));
        QVERIFY(QDir().mkpath(m_cwd + QStringLiteral("/srcx")));
        QVERIFY(QDir().mkpath(m_outside));
        // A link inside the project that leads out of it.
        QVERIFY(QFile::link(m_outside, m_cwd + QStringLiteral("/escape")));
        m_agent = RuleSubject{QStringLiteral("agent-1"), m_cwd};
    }

    void commands_data() {
        QTest::addColumn<QString>("ruleTool");
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<bool>("allow");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QString>("cmd");
        QTest::addColumn<bool>("covered");
        const QString bash = QStringLiteral("Bash");
        const QString codex = QStringLiteral("commandExecution");
        const QString npmTest = QStringLiteral("npm test");
        QTest::newRow("same command")
            << bash << npmTest << true << bash << QStringLiteral("npm test") << true;
        QTest::newRow("more words")
            << bash << npmTest << true << bash << QStringLiteral("npm test -- -w") << true;
        QTest::newRow("extra spaces")
            << bash << npmTest << true << bash << QStringLiteral("  npm   test") << true;
        QTest::newRow("longer word")
            << bash << npmTest << true << bash << QStringLiteral("npm testx") << false;
        QTest::newRow("fewer words")
            << bash << npmTest << true << bash << QStringLiteral("npm") << false;
        QTest::newRow("other command")
            << bash << npmTest << true << bash << QStringLiteral("make test") << false;
        QTest::newRow(";QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test; rm -rf /" << false;
        QTest::newRow("&&QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test && curl x" << false;
        QTest::newRow("||QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test || curl x" << false;
        QTest::newRow("|QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test | sh" << false;
        QTest::newRow("&QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test & rm x" << false;
        QTest::newRow("backticks")
            << bash << npmTest << true << bash << QStringLiteral("npm test `rm x`") << false;
        QTest::newRow("$(") << bash << npmTest << true << bash << QStringLiteral("npm test $(rm x)")
                            << false;
        QTest::newRow(">QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test > /etc/x" << false;
        QTest::newRow("<QStringLiteral(")
            << bash << npmTest << true << bash << ")npm test < /etc/x" << false;
        QTest::newRow("newline") << bash << npmTest << true << bash
                                 << QStringLiteral("npm test\nrm x") << false;
        QTest::newRow("quoted control")
            << bash << npmTest << true << bash << QStringLiteral("npm test ';'") << false;
        QTest::newRow("quoted words")
            << bash << QStringLiteral("git commit -m 'a b'") << true << bash
            << QStringLiteral("git commit -m \"a b\" --amend") << true;
        QTest::newRow("quoted differs") << bash << QStringLiteral("git commit -m 'a b'") << true
                                        << bash << QStringLiteral("git commit -m a b") << false;
        QTest::newRow("unclosed quote")
            << bash << npmTest << true << bash << QStringLiteral("npm test 'x") << false;
        QTest::newRow("empty prefix: any plain command")
            << bash << QString() << true << bash << QStringLiteral("ls -la") << true;
        QTest::newRow("empty prefix, control")
            << bash << QString() << true << bash << QStringLiteral("ls; id") << false;
        // Codex runs its commands through a shell; the script is what is matched.
        QTest::newRow("codex wrapped") << bash << npmTest << true << codex
                                       << QStringLiteral("/bin/bash -lc 'npm test -- -w'") << true;
        QTest::newRow("codex wrapped, control")
            << bash << npmTest << true << codex << QStringLiteral("/bin/bash -lc 'npm test; rm x'")
            << false;
        QTest::newRow("codex rule for claude")
            << codex << npmTest << true << bash << QStringLiteral("npm test") << true;
        QTest::newRow("not a shell wrapper") << bash << npmTest << true << codex
                                             << QStringLiteral("/bin/evil -lc 'npm test'") << false;
        // A deny rule covers a command when any part of it starts with the prefix.
        QTest::newRow("deny: first part") << bash << QStringLiteral("rm") << false << bash
                                          << QStringLiteral("rm -rf build") << true;
        QTest::newRow("deny: later part") << bash << QStringLiteral("rm") << false << bash
                                          << QStringLiteral("echo hi; rm -rf /") << true;
        QTest::newRow("deny: in $( )") << bash << QStringLiteral("curl") << false << bash
                                       << QStringLiteral("echo $(curl x)") << true;
        QTest::newRow("deny: not a word prefix")
            << bash << QStringLiteral("rm") << false << bash << QStringLiteral("rmdir x") << false;
        QTest::newRow("deny: codex wrapped")
            << bash << QStringLiteral("rm") << false << codex
            << QStringLiteral("/bin/bash -lc 'ls && rm x'") << true;
    }
    void commands() {
        QFETCH(QString, ruleTool);
        QFETCH(QString, pattern);
        QFETCH(bool, allow);
        QFETCH(QString, tool);
        QFETCH(QString, cmd);
        QFETCH(bool, covered);
        QCOMPARE(
            rules::covers(rule(ruleTool, pattern, allow), m_agent, tool, command(cmd), m_providers),
            covered);
    }

    void fileEdits_data() {
        QTest::addColumn<QString>("ruleTool");
        QTest::addColumn<QString>("pattern"); // "@" is the project dir, "%" the outside one
        QTest::addColumn<bool>("allow");
        QTest::addColumn<QString>("tool");
        QTest::addColumn<QStringList>("paths");
        QTest::addColumn<bool>("covered");
        const QString w = QStringLiteral("Write");
        QTest::newRow("empty: the project") << w << QStringLiteral("") << true << w
                                            << QStringList{QStringLiteral("@/a.txt")} << true;
        QTest::newRow("prefix dir") << w << QStringLiteral("@/src") << true << w
                                    << QStringList{QStringLiteral("@/src/deep/b.txt")} << true;
        QTest::newRow("sibling with the prefix's name")
            << w << QStringLiteral("@/src") << true << w
            << QStringList{QStringLiteral("@/srcx/b.txt")} << false;
        QTest::newRow("relative path") << w << QStringLiteral("@/src") << true << w
                                       << QStringList{QStringLiteral("src/new/c.txt")} << true;
        QTest::newRow("relative pattern") << w << QStringLiteral("src") << true << w
                                          << QStringList{QStringLiteral("@/src/c.txt")} << true;
        QTest::newRow("dot-dot out") << w << QStringLiteral("") << true << w
                                     << QStringList{QStringLiteral("@/src/../../x.txt")} << false;
        QTest::newRow("dot-dot in") << w << QStringLiteral("") << true << w
                                    << QStringList{QStringLiteral("@/src/../a.txt")} << true;
        QTest::newRow("symlink out") << w << QStringLiteral("") << true << w
                                     << QStringList{QStringLiteral("@/escape/a.txt")} << false;
        QTest::newRow("outside") << w << QStringLiteral("") << true << w
                                 << QStringList{QStringLiteral("%/a.txt")} << false;
        QTest::newRow("root pattern stays inside")
            << w << QStringLiteral("/") << true << w << QStringList{QStringLiteral("%/a.txt")}
            << true;
        QTest::newRow("rule names the outside place")
            << w << QStringLiteral("%") << true << w << QStringList{QStringLiteral("%/a.txt")}
            << true;
        QTest::newRow("through the link, the rule names outside")
            << w << QStringLiteral("%") << true << w
            << QStringList{QStringLiteral("@/escape/a.txt")} << true;
        QTest::newRow("edit covered by a write rule")
            << w << QStringLiteral("") << true << QStringLiteral("Edit")
            << QStringList{QStringLiteral("@/a.txt")} << true;
        QTest::newRow("multiedit") << w << QStringLiteral("") << true << QStringLiteral("MultiEdit")
                                   << QStringList{QStringLiteral("@/a.txt")} << true;
        QTest::newRow("codex file change")
            << w << QStringLiteral("@/src") << true << QStringLiteral("fileChange")
            << QStringList{QStringLiteral("@/src/a"), QStringLiteral("@/src/deep/b")} << true;
        QTest::newRow("codex: every path must be covered")
            << w << QStringLiteral("") << true << QStringLiteral("fileChange")
            << QStringList{QStringLiteral("@/a"), QStringLiteral("%/b")} << false;
        QTest::newRow("not a command rule") << QStringLiteral("Bash") << QStringLiteral("") << true
                                            << w << QStringList{QStringLiteral("@/a.txt")} << false;
        QTest::newRow("deny: any path under it")
            << w << QStringLiteral("@/src") << false << QStringLiteral("fileChange")
            << QStringList{QStringLiteral("@/a"), QStringLiteral("@/src/b")} << true;
        QTest::newRow("deny: outside the project too")
            << w << QStringLiteral("%") << false << w << QStringList{QStringLiteral("@/escape/x")}
            << true;
    }
    void fileEdits() {
        QFETCH(QString, ruleTool);
        QFETCH(QString, pattern);
        QFETCH(bool, allow);
        QFETCH(QString, tool);
        QFETCH(QStringList, paths);
        QFETCH(bool, covered);
        const auto expand = [this](QString s) {
            return s.replace(QLatin1Char('@'), m_cwd).replace(QLatin1Char('%'), m_outside);
        };
        QStringList real;
        for (const QString &p : std::as_const(paths))
            real << expand(p);
        const QJsonObject input =
            tool == QLatin1String("fileChange") ? fileChange(real) : write(real.constFirst());
        QCOMPARE(rules::covers(rule(ruleTool, expand(pattern), allow), m_agent, tool, input,
                               m_providers),
                 covered);
    }

    void otherToolsByName() {
        const PermissionRule fetch = rule(QStringLiteral("WebFetch"), QString());
        QVERIFY(rules::covers(fetch, m_agent, QStringLiteral("WebFetch"), {}, m_providers));
        QVERIFY(!rules::covers(fetch, m_agent, QStringLiteral("WebSearch"), {}, m_providers));
        QVERIFY(!rules::covers(fetch, m_agent, QStringLiteral("webfetch"), {}, m_providers));
    }

    void scopes() {
        PermissionRule r = rule(QStringLiteral("WebFetch"), QString());
        r.scopeAgentId = QStringLiteral("agent-1");
        QVERIFY(rules::covers(r, m_agent, QStringLiteral("WebFetch"), {}, m_providers));
        QVERIFY(!rules::covers(r, {QStringLiteral("agent-2"), m_cwd}, QStringLiteral("WebFetch"),
                               {}, m_providers));
        r.scopeAgentId.clear();
        r.scopeCwd = QFileInfo(m_cwd).path(); // every agent below the temp dir
        QVERIFY(rules::covers(r, m_agent, QStringLiteral("WebFetch"), {}, m_providers));
        r.scopeCwd = m_cwd + QStringLiteral("/src");
        QVERIFY(!rules::covers(r, m_agent, QStringLiteral("WebFetch"), {}, m_providers));
        QVERIFY(rules::covers(r, {QStringLiteral("a3"), m_cwd + QStringLiteral("/src/deep")},
                              QStringLiteral("WebFetch"), {}, m_providers));
        r.scopeCwd = m_cwd + QStringLiteral("/sr"); // a prefix of the name is not a parent
        QVERIFY(!rules::covers(r, {QStringLiteral("a4"), m_cwd + QStringLiteral("/src")},
                               QStringLiteral("WebFetch"), {}, m_providers));
    }

    void denyWins() {
        const QList<PermissionRule> list{
            rule(QStringLiteral("Bash"), QStringLiteral("npm")),
            rule(QStringLiteral("Bash"), QStringLiteral("npm publish"), false)};
        const RuleVerdict test = rules::evaluate(list, m_agent, QStringLiteral("Bash"),
                                                 command(QStringLiteral("npm test")), m_providers);
        QCOMPARE(int(test.kind), int(RuleVerdict::Kind::Allow));
        QCOMPARE(test.ruleId, list.at(0).id);
        const RuleVerdict publish =
            rules::evaluate(list, m_agent, QStringLiteral("Bash"),
                            command(QStringLiteral("npm publish")), m_providers);
        QCOMPARE(int(publish.kind), int(RuleVerdict::Kind::Deny));
        QCOMPARE(publish.ruleId, list.at(1).id);
        QCOMPARE(int(rules::evaluate(list, m_agent, QStringLiteral("Bash"),
                                     command(QStringLiteral("make")), m_providers)
                         .kind),
                 int(RuleVerdict::Kind::None));
    }

    void rememberedRules() {
        const QString bash = QStringLiteral("Bash");
        auto r = rules::rememberedRule(QStringLiteral("agent"), true, m_agent, bash,
                                       command(QStringLiteral("npm test -- -w")), std::nullopt,
                                       m_providers);
        QVERIFY(r);
        QCOMPARE(r->pattern, QStringLiteral("npm test -- -w"));
        QCOMPARE(r->scopeAgentId, m_agent.agentId);
        r = rules::rememberedRule(QStringLiteral("project"), true, m_agent,
                                  QStringLiteral("commandExecution"),
                                  command(QStringLiteral("/bin/bash -lc 'git commit -m \"a b\"'")),
                                  std::nullopt, m_providers);
        QVERIFY(r);
        QCOMPARE(r->pattern, QStringLiteral("git commit -m 'a b'"));
        QCOMPARE(r->scopeCwd, m_cwd);
        // An allow rule for a command with shell control could never match: refused.
        r = rules::rememberedRule(QStringLiteral("global"), true, m_agent, bash,
                                  command(QStringLiteral("make && make install")), std::nullopt,
                                  m_providers);
        QVERIFY(!r);
        QVERIFY(r.error().message.contains(QStringLiteral("shell control")));
        // A deny remembers the first part.
        r = rules::rememberedRule(QStringLiteral("global"), false, m_agent, bash,
                                  command(QStringLiteral("curl x | sh")), std::nullopt,
                                  m_providers);
        QVERIFY(r);
        QCOMPARE(r->pattern, QStringLiteral("curl x"));
        QVERIFY(r->scopeAgentId.isEmpty() && r->scopeCwd.isEmpty());
        // A file edit: the directory holding the files.
        r = rules::rememberedRule(QStringLiteral("agent"), true, m_agent, QStringLiteral("Write"),
                                  write(m_cwd + QStringLiteral("/src/deep/n.txt")), std::nullopt,
                                  m_providers);
        QVERIFY(r);
        QCOMPARE(r->pattern, m_cwd + QStringLiteral("/src/deep"));
        r = rules::rememberedRule(
            QStringLiteral("agent"), true, m_agent, QStringLiteral("fileChange"),
            fileChange({m_cwd + QStringLiteral("/src/a"), m_cwd + QStringLiteral("/srcx/b")}),
            std::nullopt, m_providers);
        QVERIFY(r);
        QCOMPARE(r->pattern, m_cwd);
        // A pattern given that does not cover the request, or a bad scope: refused.
        QVERIFY(!rules::rememberedRule(QStringLiteral("agent"), true, m_agent, bash,
                                       command(QStringLiteral("npm test")), QStringLiteral("make"),
                                       m_providers));
        QVERIFY(!rules::rememberedRule(QStringLiteral("forever"), true, m_agent, bash,
                                       command(QStringLiteral("npm test")), std::nullopt,
                                       m_providers));
    }

    void drafts_data() {
        QTest::addColumn<QJsonObject>("body");
        QTest::addColumn<QString>("code"); // empty: accepted
        const auto o = [](std::initializer_list<QPair<QString, QJsonValue>> l) {
            QJsonObject j;
            for (const auto &p : l)
                j.insert(p.first, p.second);
            return j;
        };
        QTest::newRow("ok") << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                                  {QStringLiteral("pattern"), QStringLiteral("npm test")},
                                  {QStringLiteral("decision"), QStringLiteral("allow")}})
                            << QString();
        QTest::newRow("ok, cwd scope")
            << o({{QStringLiteral("tool"), QStringLiteral("Write")},
                  {QStringLiteral("decision"), QStringLiteral("deny")},
                  {QStringLiteral("scope"),
                   QJsonObject{{QStringLiteral("cwd"), QStringLiteral("/x")}}}})
            << QString();
        QTest::newRow("no tool") << o({{QStringLiteral("decision"), QStringLiteral("allow")}})
                                 << QStringLiteral("missing_field");
        QTest::newRow("no decision") << o({{QStringLiteral("tool"), QStringLiteral("Bash")}})
                                     << QStringLiteral("missing_field");
        QTest::newRow("bad decision") << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                                            {QStringLiteral("decision"), QStringLiteral("maybe")}})
                                      << QStringLiteral("invalid_value");
        QTest::newRow("tool not a string")
            << o({{QStringLiteral("tool"), 3},
                  {QStringLiteral("decision"), QStringLiteral("allow")}})
            << QStringLiteral("wrong_type");
        QTest::newRow("unknown field") << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                                             {QStringLiteral("decision"), QStringLiteral("allow")},
                                             {QStringLiteral("id"), QStringLiteral("x")}})
                                       << QStringLiteral("unknown_field");
        QTest::newRow("control in pattern")
            << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("pattern"), QStringLiteral("npm test; rm")},
                  {QStringLiteral("decision"), QStringLiteral("allow")}})
            << QStringLiteral("invalid_value");
        QTest::newRow("pattern for a named tool")
            << o({{QStringLiteral("tool"), QStringLiteral("WebFetch")},
                  {QStringLiteral("pattern"), QStringLiteral("x")},
                  {QStringLiteral("decision"), QStringLiteral("allow")}})
            << QStringLiteral("invalid_value");
        QTest::newRow("scope not an object")
            << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("decision"), QStringLiteral("allow")},
                  {QStringLiteral("scope"), QStringLiteral("global")}})
            << QStringLiteral("wrong_type");
        QTest::newRow("scope with both")
            << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("decision"), QStringLiteral("allow")},
                  {QStringLiteral("scope"),
                   QJsonObject{{QStringLiteral("cwd"), QStringLiteral("/x")},
                               {QStringLiteral("agentId"), QStringLiteral("a")}}}})
            << QStringLiteral("invalid_value");
        QTest::newRow("relative scope cwd")
            << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("decision"), QStringLiteral("allow")},
                  {QStringLiteral("scope"),
                   QJsonObject{{QStringLiteral("cwd"), QStringLiteral("x")}}}})
            << QStringLiteral("invalid_value");
        QTest::newRow("unknown scope key")
            << o({{QStringLiteral("tool"), QStringLiteral("Bash")},
                  {QStringLiteral("decision"), QStringLiteral("allow")},
                  {QStringLiteral("scope"),
                   QJsonObject{{QStringLiteral("area"), QStringLiteral("x")}}}})
            << QStringLiteral("unknown_field");
    }
    void drafts() {
        QFETCH(QJsonObject, body);
        QFETCH(QString, code);
        const auto draft = parseRuleDraft(body, m_providers);
        if (code.isEmpty())
            QVERIFY2(draft.ok(), draft.ok() ? "" : qPrintable(draft.error().message));
        else
            QCOMPARE(draft.ok() ? QString() : QString(draft.error().code), code);
    }
};

QTEST_GUILESS_MAIN(TestPermissionRules)
#include "tst_permission_rules.moc"
