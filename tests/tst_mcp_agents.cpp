// Flotilla's MCP server as the agents' own CLIs use it: every row runs the real Claude Code and
// the real Codex CLI against their scripted mocks, with the server configured by the service
// (Claude: --mcp-config naming the token's private file and an allow rule for its tools; Codex:
// thread/start's config, the token on its stdin only). A member reports through report_task, a
// boss spawns and delegates through spawn_agent and delegate, a member's spawn_agent is refused;
// none of it asks for a permission, no token shows on a command line, in an environment or (for
// Codex) in a file under HOME, and each call is a tool row with its input and result.
//
// The models call the tools directly: Claude a tool_use of mcp__flotilla__<tool> (the CLI runs a
// deferred MCP tool called without ToolSearch first), Codex a function_call of the
// "mcp__flotilla" namespace.

#include "protocol/McpNames.h"
#include "support/BossFixtures.h"
#include "support/FileProbe.h"

#include <QDirIterator>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;
namespace mcp = flotilla::wire::mcp;

namespace {

const QByteArray kServiceToken = "mcp-agents-service-token-0123456789abcdef";

// The model calls `tool` of the flotilla server; returns the id its result will carry.
QString queueMcpCall(AgentRig &rig, QLatin1String tool, const QJsonObject &arguments) {
    if (rig.isCodex())
        return rig.openai.queueFunctionCall(tool, arguments, {}, mcp::CodexNamespace);
    return rig.mock.queueToolUse(QString(mcp::ClaudeToolPrefix) + tool, arguments);
}

// What the model was given back for call `id`, empty until a request carries it.
QString mcpResultOf(AgentRig &rig, const QString &id) {
    for (int i = 0; i < rig.model().requestCount(); ++i) {
        if (rig.isCodex() && rig.openai.hasFunctionCallOutput(i, id))
            return rig.openai.functionCallOutputOf(i, id);
        if (!rig.isCodex() && rig.mock.hasToolResult(i, id))
            return rig.mock.toolResultTextOf(i, id);
    }
    return {};
}

QString waitMcpResult(AgentRig &rig, const QString &id) {
    QString result;
    (void)QTest::qWaitFor(
        [&] {
            result = mcpResultOf(rig, id);
            return !result.isEmpty();
        },
        60000);
    return result;
}

// Every process's command line and environment, NULs as spaces.
QList<QByteArray> allProcessTexts() {
    QList<QByteArray> out;
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        if (pid.isEmpty() || !pid.at(0).isDigit())
            continue;
        for (const char *file : {"cmdline", "environ"}) {
            QByteArray text = readAll(QStringLiteral("/proc/%1/%2").arg(pid, QLatin1String(file)));
            text.replace('\0', ' ');
            if (!text.isEmpty())
                out << text;
        }
    }
    return out;
}

// The files under `dir` that hold `secret`.
QStringList filesHolding(const QString &dir, const QByteArray &secret) {
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (readAll(path).contains(secret))
            out << path;
    }
    return out;
}

QString tokenFile(AgentRig &rig, const QString &agentId, const char *suffix) {
    return rig.svc->config().dataDir + QStringLiteral("/agent-tokens/") + agentId +
           QLatin1String(suffix);
}

// The agent's output chunks of one tool: its use (with input) and its result.
QList<QJsonObject> toolChunks(AgentRig &rig, const QString &agentId, const QString &tool) {
    QList<QJsonObject> out;
    for (const QJsonObject &c : rig.chunks(agentId)) {
        if (str(c, "toolName") == tool)
            out << c;
    }
    return out;
}

QString chunksText(AgentRig &rig, const QString &agentId) {
    QStringList out;
    for (const QJsonObject &c : rig.chunks(agentId))
        out << json(c);
    return out.join(QLatin1Char('\n'));
}

QJsonObject resultChunk(AgentRig &rig, const QString &agentId, const QString &tool) {
    for (const QJsonObject &c : toolChunks(rig, agentId, tool)) {
        if (c.contains(QLatin1String("toolOutput")))
            return c;
    }
    return {};
}

// spawn_boss_agent of the rig's provider; the boss id once its team is announced.
QString spawnBossOf(AgentRig &rig, const QString &name, const QStringList &team) {
    QJsonObject payload{{QStringLiteral("name"), name},
                        {QStringLiteral("cwd"), rig.cwd},
                        {QStringLiteral("subordinateIds"), QJsonArray::fromStringList(team)}};
    if (rig.isCodex()) {
        payload.insert(QStringLiteral("provider"), QStringLiteral("codex"));
        payload.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
    }
    sendWs(*rig.ws, "spawn_boss_agent", payload);
    const QString id =
        str(waitPayload(*rig.ws, "agent_created", 1, field("name", name), 5000), "id");
    if (id.isEmpty() ||
        waitPayload(*rig.ws, "boss_subordinates_updated", 1, field("bossId", id), 5000).isEmpty())
        return {};
    return id;
}

} // namespace

class TestMcpAgents final : public QObject {
    Q_OBJECT

    QElapsedTimer m_clock;

    static std::unique_ptr<AgentRig> rigFor(const QString &provider) {
        return std::make_unique<AgentRig>(provider,
                                          [](ServerConfig &c) { c.authToken = kServiceToken; });
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        m_clock.start();
    }
    void cleanupTestCase() { qInfo("tst_mcp_agents took %lld ms", m_clock.elapsed()); }

    // A member in "ask" mode reports its delegated task through report_task: the boss gets it
    // (source "report") as its next message, the call is a tool row with input and result, no
    // permission is asked, and the member's token is nowhere but in its private files. Its next
    // call, spawn_agent, a boss's tool, is refused and creates nothing.
    void memberReportsThroughTheTool_data() { addProviderRows(); }
    void memberReportsThroughTheTool() {
        QFETCH(QString, provider);
        const auto rigPtr = rigFor(provider);
        AgentRig &rig = *rigPtr;
        QVERIFY(rig.start());
        QCOMPARE(str(rig.agent(), "permissionMode"), QStringLiteral("ask"));
        const QString bossId = spawnBossOf(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());

        const QString reportTool = QString(mcp::ClaudeToolPrefix) + mcp::tool::ReportTask;
        const QJsonObject report{
            {QStringLiteral("summary"), QStringLiteral("Fixed the null check")},
            {QStringLiteral("status"), QStringLiteral("completed")}};
        rig.model().queueText(
            fenced("delegation",
                   json(QJsonObject{{QStringLiteral("agentName"), QStringLiteral("agent-1")},
                                    {QStringLiteral("task"), QStringLiteral("Fix auth.cpp")}})));
        const QString callId = queueMcpCall(rig, mcp::tool::ReportTask, report);
        // The member's next request and the boss's report turn race for these: both are text.
        rig.model().queueText(QStringLiteral("Noted."));
        rig.model().queueText(QStringLiteral("Noted."));
        sendCommand(rig, bossId, QStringLiteral("Fix the login bug"));

        // The member was told to use the tool.
        const QJsonObject started = waitPayload(*rig.ws, "agent_task_started");
        QCOMPARE(str(started, "subordinateId"), rig.agentId);
        QTRY_VERIFY_WITH_TIMEOUT(rig.model().requestCount() >= 2, 60000);
        QVERIFY2(rig.model().lastUserTextOf(1).contains(reportTool),
                 qPrintable(rig.model().lastUserTextOf(1)));

        // The report reaches the boss, from the tool.
        const QJsonObject done = waitPayload(*rig.ws, "agent_task_completed");
        QCOMPARE(str(done, "source"), QStringLiteral("report"));
        QCOMPARE(str(done, "subordinateId"), rig.agentId);
        QCOMPARE(str(done, "summary"), QStringLiteral("Fixed the null check"));
        QVERIFY(rig.waitTurns(2, 60000, bossId));
        bool bossRead = false;
        for (int i = 0; i < rig.model().requestCount(); ++i)
            bossRead = bossRead ||
                       (rig.model().lastUserTextOf(i).contains(QStringLiteral("[Task report")) &&
                        rig.model().lastUserTextOf(i).contains(QStringLiteral("Fixed the null "
                                                                              "check")));
        QVERIFY(bossRead);
        QVERIFY(rig.waitTurns(1, 60000, rig.agentId));

        // What the member's model got back: the route's answer, forwarded to its boss.
        const QString result = waitMcpResult(rig, callId);
        QVERIFY2(result.contains(bossId), qPrintable(result));

        // The tool row: name, input, result, as either CLI calls it.
        const QList<QJsonObject> rows = toolChunks(rig, rig.agentId, reportTool);
        QVERIFY2(!rows.isEmpty(), qPrintable(chunksText(rig, rig.agentId)));
        QCOMPARE(rows.first().value(QStringLiteral("toolInput")).toObject(), report);
        const QJsonObject resultRow = resultChunk(rig, rig.agentId, reportTool);
        QVERIFY2(str(resultRow, "toolOutput").contains(bossId), qPrintable(json(resultRow)));
        QVERIFY(!resultRow.value(QStringLiteral("isError")).toBool());
        const QJsonArray history =
            rig.http
                .get(
                    rig.svc->url(QStringLiteral("/api/agents/tool-history?agentId=") + rig.agentId))
                .object()
                .value(QStringLiteral("toolExecutions"))
                .toArray();
        bool recorded = false;
        for (const QJsonValue &h : history)
            recorded = recorded || (str(h.toObject(), "toolName") == reportTool &&
                                    h.toObject().value(QStringLiteral("toolInput")) == report);
        QVERIFY2(recorded, qPrintable(json(history)));

        // Its credential: the private files, and nowhere a process shows.
        QVERIFY(rig.agent().value(QStringLiteral("isProcessRunning")).toBool());
        const QString headerFile = tokenFile(rig, rig.agentId, ".header");
        const QString configFile = tokenFile(rig, rig.agentId, ".mcp.json");
        QByteArray token = readAll(headerFile).trimmed();
        QVERIFY(token.startsWith("X-Auth-Token: flotilla-agent."));
        token = token.mid(14);
        const QByteArray secret = token.mid(token.lastIndexOf('.') + 1);
        QCOMPARE(secret.size(), 64);
        QCOMPARE(modeOf(configFile), 0600);
        const QJsonObject server = QJsonDocument::fromJson(readAll(configFile))
                                       .object()
                                       .value(QStringLiteral("mcpServers"))
                                       .toObject()
                                       .value(QString(mcp::ServerName))
                                       .toObject();
        QCOMPARE(str(server, "type"), QStringLiteral("http"));
        QCOMPARE(str(server, "url"), rig.svc->url(QString(mcp::Path)).toString());
        QCOMPARE(str(server.value(QStringLiteral("headers")).toObject(), "X-Auth-Token"),
                 QString::fromLatin1(token));
        bool configPassed = false;
        for (const QByteArray &text : allProcessTexts()) {
            QVERIFY2(!text.contains(secret), text.left(300).constData());
            QVERIFY2(!text.contains(kServiceToken), text.left(300).constData());
            configPassed =
                configPassed || (text.contains(QByteArray("--mcp-config " + configFile.toUtf8())) &&
                                 text.contains("mcp__flotilla"));
        }
        QCOMPARE(configPassed, !rig.isCodex()); // Codex: thread/start's config, over stdin
        QVERIFY2(filesHolding(rig.home, secret).isEmpty(),
                 qPrintable(filesHolding(rig.home, secret).join(QLatin1Char(' '))));

        // A member is no boss: its spawn_agent is refused and creates nothing.
        const int agentsBefore = rig.ws->countOf(QStringLiteral("agent_created"));
        const QString spawnCall = queueMcpCall(
            rig, mcp::tool::SpawnAgent, QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}});
        rig.model().queueText(QStringLiteral("Could not."));
        QCOMPARE(rig.send(QStringLiteral("add a helper"), rig.agentId).status, 200);
        QVERIFY(rig.waitTurns(2, 60000, rig.agentId));
        const QString refused = waitMcpResult(rig, spawnCall);
        // Claude: "No such tool available: mcp__flotilla__spawn_agent"; Codex: "unsupported call:
        // mcp__flotillaspawn_agent" (the server offers a member no boss tools).
        QVERIFY2(refused.contains(QLatin1String(mcp::tool::SpawnAgent)), qPrintable(refused));
        QVERIFY2(!refused.contains(QStringLiteral("\"id\"")), qPrintable(refused));
        if (!rig.isCodex()) { // Claude shows the refused call as a failed tool row
            const QJsonObject row = resultChunk(
                rig, rig.agentId, QString(mcp::ClaudeToolPrefix) + mcp::tool::SpawnAgent);
            QVERIFY2(row.value(QStringLiteral("isError")).toBool(), qPrintable(json(row)));
        }
        QCOMPARE(rig.ws->countOf(QStringLiteral("agent_created")), agentsBefore);
        for (const QJsonValue &a :
             rig.http.get(rig.svc->url(QStringLiteral("/api/agents"))).array())
            QVERIFY(str(a.toObject(), "name") != QStringLiteral("x"));

        // "ask" mode throughout, and no tool of the server asked.
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 0);

        // The process ends: both files go with its token.
        QCOMPARE(rig.post(QStringLiteral("/api/agents/bulk/stop"),
                          QJsonObject{{QStringLiteral("agentIds"), QJsonArray{rig.agentId}}})
                     .status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(configFile) && !QFile::exists(headerFile), 10000);
    }

    // A boss adds a member with spawn_agent and gives it a task with delegate: the member is on
    // its team, the delegation is recorded, the member's turn runs the task; no permission asked.
    void bossSpawnsAndDelegatesThroughTools_data() { addProviderRows(); }
    void bossSpawnsAndDelegatesThroughTools() {
        QFETCH(QString, provider);
        const auto rigPtr = rigFor(provider);
        AgentRig &rig = *rigPtr;
        QVERIFY(rig.start());
        const QString bossId = spawnBossOf(rig, QStringLiteral("boss-1"), {rig.agentId});
        QVERIFY(!bossId.isEmpty());

        QJsonObject spec{{QStringLiteral("name"), QStringLiteral("coder")}};
        if (rig.isCodex()) {
            spec.insert(QStringLiteral("provider"), QStringLiteral("codex"));
            spec.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
        }
        const QString spawnCall = queueMcpCall(rig, mcp::tool::SpawnAgent, spec);
        const QString delegateCall =
            queueMcpCall(rig, mcp::tool::Delegate,
                         QJsonObject{{QStringLiteral("agentName"), QStringLiteral("coder")},
                                     {QStringLiteral("task"), QStringLiteral("Port auth.cpp")},
                                     {QStringLiteral("reasoning"), QStringLiteral("fresh")}});
        // The boss's answer, the member's and the boss's reading of the member's end: all text.
        for (int i = 0; i < 3; ++i)
            rig.model().queueText(QStringLiteral("Done."));
        sendCommand(rig, bossId, QStringLiteral("Port the auth module"));

        const QJsonObject spawned = waitPayload(*rig.ws, "boss_spawned_agent");
        QCOMPARE(str(spawned, "bossId"), bossId);
        const QJsonObject member = spawned.value(QStringLiteral("agent")).toObject();
        QCOMPARE(str(member, "name"), QStringLiteral("coder"));
        QCOMPARE(str(member, "provider"), provider);
        const QString coderId = str(member, "id");
        QVERIFY2(waitMcpResult(rig, spawnCall).contains(coderId),
                 qPrintable(mcpResultOf(rig, spawnCall)));

        const QJsonObject started =
            waitPayload(*rig.ws, "agent_task_started", 1, field("subordinateId", coderId));
        QCOMPARE(str(started, "bossId"), bossId);
        QCOMPARE(str(started, "task"), QStringLiteral("Port auth.cpp"));
        const QString taskId = str(started, "taskId");
        QVERIFY2(waitMcpResult(rig, delegateCall).contains(taskId),
                 qPrintable(mcpResultOf(rig, delegateCall)));
        const QJsonArray decisions =
            rig.http.get(rig.svc->url(QStringLiteral("/api/agents/%1/delegations").arg(bossId)))
                .object()
                .value(QStringLiteral("decisions"))
                .toArray();
        QCOMPARE(decisions.size(), 1);
        QCOMPARE(str(decisions.at(0).toObject(), "id"), taskId);
        QCOMPARE(str(decisions.at(0).toObject(), "selectedAgentId"), coderId);
        QCOMPARE(str(decisions.at(0).toObject(), "reasoning"), QStringLiteral("fresh"));

        // The member's turn ran the task.
        QVERIFY(rig.waitTurns(1, 60000, coderId));
        bool memberGotIt = false;
        for (int i = 0; i < rig.model().requestCount(); ++i)
            memberGotIt = memberGotIt ||
                          rig.model().lastUserTextOf(i).contains(QStringLiteral("Port auth.cpp"));
        QVERIFY(memberGotIt);

        // Both calls are the boss's tool rows; nothing asked.
        for (QLatin1String tool : {mcp::tool::SpawnAgent, mcp::tool::Delegate}) {
            const QString name = QString(mcp::ClaudeToolPrefix) + tool;
            QVERIFY2(!toolChunks(rig, bossId, name).isEmpty(), qPrintable(chunksText(rig, bossId)));
            QVERIFY(!resultChunk(rig, bossId, name).isEmpty());
        }
        QCOMPARE(rig.ws->countOf(QStringLiteral("permission_request")), 0);
    }
};

QTEST_GUILESS_MAIN(TestMcpAgents)
#include "tst_mcp_agents.moc"
