// flotillad's MCP server (POST /mcp) against a client nobody here wrote: the official TypeScript
// SDK (@modelcontextprotocol/sdk, pinned in third_party/mcp-sdk by scripts/install-mcp-sdk.sh),
// its Client over StreamableHTTPClientTransport, run by tests/mcp/sdk-client.mjs. The service runs
// in process with the service token, the pinned Claude Code CLI and the scripted model; the team
// (a boss and its member), a building and a pending permission request are made over REST and the
// WebSocket first. The three tools that start a turn (send_message, delegate, and report_task,
// which hands the report to the boss) run the real CLI against the mock's unscripted answer: one
// short turn each, in parallel with the rest of the calls.

#include "protocol/McpNames.h"
#include "support/BossFixtures.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryFile>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace tool = wire::mcp::tool;

const QByteArray kToken = "mcp-sdk-service-token-5174";

// Every tool the service token sees (docs/api.md "MCP").
const QStringList &allTools() {
    static const QStringList names{tool::ReportTask,
                                   tool::Notify,
                                   tool::SetStatus,
                                   tool::Whoami,
                                   tool::ListBuildings,
                                   tool::BuildingLogs,
                                   tool::ListTeam,
                                   tool::SpawnAgent,
                                   tool::Delegate,
                                   tool::AgentHistory,
                                   tool::StopAgent,
                                   tool::WorkPlan,
                                   tool::ListAgents,
                                   tool::GetAgent,
                                   tool::SendMessage,
                                   tool::CreateAgent,
                                   tool::ListPermissionRequests,
                                   tool::AnswerPermission};
    return names;
}

QJsonObject sub(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toObject();
}

// What sdk-client.mjs printed and how it ended.
struct SdkRun {
    int exitCode = -1;
    QJsonObject doc;
    QByteArray err;
    QString describe() const {
        return QStringLiteral("exit %1, stdout %2, stderr %3")
            .arg(exitCode)
            .arg(QString::fromUtf8(QJsonDocument(doc).toJson(QJsonDocument::Compact)),
                 QString::fromUtf8(err));
    }
};

// One call's row of the document, by position (the plan's order).
QJsonObject callRow(const SdkRun &run, int i) {
    return run.doc.value(QLatin1String("calls")).toArray().at(i).toObject();
}

bool hasId(const QJsonArray &rows, const QString &id) {
    return std::any_of(rows.begin(), rows.end(),
                       [&](const QJsonValue &v) { return str(v.toObject(), "id") == id; });
}

} // namespace

class TestMcpSdk final : public QObject {
    Q_OBJECT

    std::unique_ptr<AgentRig> m_rig;
    QString m_boss, m_member, m_loner, m_stoppable, m_asker, m_building;

    QUrl mcpUrl() const { return m_rig->svc->url(QString(wire::mcp::Path)); }

    // Runs the SDK client with `plan` and `token` (none when empty); the service in this thread
    // answers while it runs, so the wait spins the event loop.
    SdkRun runSdk(const QJsonObject &plan, const QByteArray &token) {
        SdkRun run;
        QTemporaryFile planFile(m_rig->svc->workDir() + QStringLiteral("/plan-XXXXXX.json"));
        if (!planFile.open())
            return run;
        planFile.write(QJsonDocument(plan).toJson(QJsonDocument::Compact));
        planFile.flush();

        QProcess node;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("FLOTILLA_MCP_TOKEN"));
        if (!token.isEmpty())
            env.insert(QStringLiteral("FLOTILLA_MCP_TOKEN"), QString::fromUtf8(token));
        env.insert(QStringLiteral("FLOTILLA_MCP_SDK_DIR"),
                   QStringLiteral(FLOTILLA_TEST_MCP_SDK_DIR));
        node.setProcessEnvironment(env);
        node.setProgram(QStringLiteral(FLOTILLA_TEST_NODE_BIN));
        node.setArguments(
            {QStringLiteral(FLOTILLA_TEST_MCP_CLIENT), mcpUrl().toString(), planFile.fileName()});
        QSignalSpy finished(&node, &QProcess::finished);
        node.start();
        if (!finished.wait(60000)) {
            node.kill();
            node.waitForFinished();
        }
        run.exitCode = node.exitStatus() == QProcess::NormalExit ? node.exitCode() : -1;
        run.doc = QJsonDocument::fromJson(node.readAllStandardOutput()).object();
        run.err = node.readAllStandardError();
        return run;
    }

    // The CLI's PermissionRequest hook for `agentId`; the service holds the reply until an answer.
    QNetworkReply *askPermission(QNetworkAccessManager &nam, const QString &agentId) {
        QNetworkRequest request(
            m_rig->svc->url(QStringLiteral("/api/agents/%1/permission-check").arg(agentId)));
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        request.setRawHeader("X-Auth-Token", kToken);
        return nam.post(
            request,
            json(QJsonObject{
                     {QStringLiteral("hook_event_name"), QStringLiteral("PermissionRequest")},
                     {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                     {QStringLiteral("tool_input"),
                      QJsonObject{{QStringLiteral("command"), QStringLiteral("echo via-mcp")}}}})
                .toUtf8());
    }

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY2(QFileInfo(QStringLiteral(FLOTILLA_TEST_NODE_BIN)).isExecutable(),
                 "node not found: scripts/install-deps.sh installs it");
        QVERIFY2(
            QFile::exists(QStringLiteral(FLOTILLA_TEST_MCP_SDK_DIR
                                         "/node_modules/@modelcontextprotocol/sdk/package.json")),
            "the MCP SDK is not installed: run scripts/install-mcp-sdk.sh");
        m_rig = std::make_unique<AgentRig>([](ServerConfig &c) { c.authToken = kToken; });
        QVERIFY(m_rig->start());
        m_loner = m_rig->agentId;
        m_member = createAgent(*m_rig, QStringLiteral("member"));
        m_stoppable = createAgent(*m_rig, QStringLiteral("stoppable"));
        m_asker = createAgent(*m_rig, QStringLiteral("asker"));
        QVERIFY(!m_member.isEmpty() && !m_stoppable.isEmpty() && !m_asker.isEmpty());
        m_boss = spawnBoss(*m_rig, QStringLiteral("boss"), {m_member});
        QVERIFY(!m_boss.isEmpty());

        // A building that has printed a line, for building_logs.
        const HttpResponse b =
            m_rig->post(QStringLiteral("/api/buildings"),
                        QJsonObject{{QStringLiteral("name"), QStringLiteral("web")},
                                    {QStringLiteral("cwd"), m_rig->cwd},
                                    {QStringLiteral("command"),
                                     QJsonArray{QStringLiteral("sh"), QStringLiteral("-c"),
                                                QStringLiteral("echo building-says-hello")}}});
        QCOMPARE(b.status, 201);
        m_building = str(b.object(), "id");
        QCOMPARE(m_rig->post(QStringLiteral("/api/buildings/%1/start").arg(m_building), {}).status,
                 200);
        QTRY_VERIFY_WITH_TIMEOUT(
            m_rig->http
                .get(m_rig->svc->url(QStringLiteral("/api/buildings/%1/logs").arg(m_building)))
                .body.contains("building-says-hello"),
            10000);
    }

    void cleanupTestCase() { m_rig.reset(); }

    // (a) The SDK connects (initialize, the session id, notifications/initialized; its GET for a
    // server stream is 405, which the SDK takes as "none"), lists every tool with an object
    // schema, and ends the session with DELETE. Both ways of sending the token.
    void listsEveryTool_data() {
        QTest::addColumn<QString>("auth");
        QTest::newRow("X-Auth-Token") << QStringLiteral("x-auth-token");
        QTest::newRow("Authorization: Bearer") << QStringLiteral("bearer");
    }
    void listsEveryTool() {
        QFETCH(QString, auth);
        const SdkRun run = runSdk(QJsonObject{{QStringLiteral("auth"), auth}}, kToken);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QCOMPARE(str(sub(run.doc, "serverInfo"), "name"), QString(wire::mcp::ServerName));
        QVERIFY(!str(sub(run.doc, "serverInfo"), "version").isEmpty());
        QVERIFY(!str(run.doc, "protocolVersion").isEmpty());
        QVERIFY(sub(run.doc, "capabilities").value(QLatin1String("tools")).isObject());
        QVERIFY(!str(run.doc, "sessionId").isEmpty());
        QVERIFY2(run.doc.value(QLatin1String("terminated")).toBool(), qPrintable(run.describe()));
        QVERIFY2(run.doc.value(QLatin1String("transportErrors")).toArray().isEmpty(),
                 qPrintable(run.describe()));

        // The DELETE ended the session: its id is now unknown (404, initialize again).
        const HttpResponse after =
            m_rig->http.send("POST", mcpUrl(), R"({"jsonrpc":"2.0","id":9,"method":"tools/list"})",
                             {{"mcp-session-id", str(run.doc, "sessionId").toUtf8()},
                              {"accept", "application/json, text/event-stream"}});
        QCOMPARE(after.status, 404);

        QStringList names;
        for (const QJsonValue &v : run.doc.value(QLatin1String("tools")).toArray()) {
            const QJsonObject t = v.toObject();
            names << str(t, "name");
            // The SDK's own validator (Ajv) compiled it.
            QVERIFY2(!t.contains(QLatin1String("schemaError")),
                     qPrintable(str(t, "name") + QLatin1Char(' ') + str(t, "schemaError")));
            const QJsonObject schema = sub(t, "inputSchema");
            QVERIFY2(str(schema, "type") == QLatin1String("object"), qPrintable(str(t, "name")));
            QVERIFY2(schema.value(QLatin1String("properties")).isObject() ||
                         !schema.contains(QLatin1String("properties")),
                     qPrintable(str(t, "name")));
        }
        QStringList expected = allTools();
        names.sort();
        expected.sort();
        QCOMPARE(names, expected);
    }

    // (b) Every tool, called once with valid arguments in one session, succeeds with a result
    // that says what happened; then the service shows it happened.
    void callsEveryTool() {
        QNetworkAccessManager nam;
        std::unique_ptr<QNetworkReply> hook(askPermission(nam, m_asker));
        const QJsonObject asked =
            waitPayload(*m_rig->ws, "permission_request", 1, field("agentId", m_asker), 10000);
        const QString permissionId = str(asked, "id");
        QVERIFY(!permissionId.isEmpty());

        const auto call = [](QLatin1String name, const QJsonObject &args) {
            return QJsonObject{{QStringLiteral("name"), QString(name)},
                               {QStringLiteral("arguments"), args}};
        };
        const auto id = [](const char *key, const QString &v) {
            return QJsonObject{{QLatin1String(key), v}};
        };
        const QString message = QStringLiteral("hello from the MCP SDK");
        // Positions in the plan, for the checks below.
        enum {
            Whoami,
            ListBuildings,
            BuildingLogs,
            SetStatus,
            Notify,
            ListTeam,
            SpawnAgent,
            WorkPlan,
            Delegate,
            ReportTask,
            ListAgents,
            GetAgent,
            SendMessage,
            AgentHistory,
            StopAgent,
            CreateAgent,
            ListPermissionRequests,
            AnswerPermission,
            Count
        };
        const QJsonArray calls{
            call(tool::Whoami, id("agentId", m_member)),
            call(tool::ListBuildings, {}),
            call(tool::BuildingLogs, QJsonObject{{QStringLiteral("name"), QStringLiteral("web")},
                                                 {QStringLiteral("tail"), 10}}),
            call(tool::SetStatus,
                 QJsonObject{
                     {QStringLiteral("agentId"), m_member},
                     {QStringLiteral("taskLabel"), QStringLiteral("sdk")},
                     {QStringLiteral("trackingStatus"), QStringLiteral("working")},
                     {QStringLiteral("trackingStatusDetail"), QStringLiteral("conformance")}}),
            call(tool::Notify,
                 QJsonObject{{QStringLiteral("agentId"), m_member},
                             {QStringLiteral("title"), QStringLiteral("sdk title")},
                             {QStringLiteral("message"), QStringLiteral("sdk body")}}),
            call(tool::ListTeam, id("bossId", m_boss)),
            call(tool::SpawnAgent,
                 QJsonObject{{QStringLiteral("bossId"), m_boss},
                             {QStringLiteral("name"), QStringLiteral("spawned")}}),
            call(tool::WorkPlan,
                 QJsonObject{{QStringLiteral("bossId"), m_boss},
                             {QStringLiteral("title"), QStringLiteral("sdk plan")},
                             {QStringLiteral("tasks"),
                              QJsonArray{QJsonObject{
                                  {QStringLiteral("description"), QStringLiteral("check the SDK")},
                                  {QStringLiteral("agentName"), QStringLiteral("member")}}}}}),
            call(tool::Delegate,
                 QJsonObject{{QStringLiteral("bossId"), m_boss},
                             {QStringLiteral("agentName"), QStringLiteral("member")},
                             {QStringLiteral("task"), QStringLiteral("say hi")},
                             {QStringLiteral("reasoning"), QStringLiteral("test")}}),
            call(tool::ReportTask,
                 QJsonObject{{QStringLiteral("agentId"), m_member},
                             {QStringLiteral("summary"), QStringLiteral("done")},
                             {QStringLiteral("status"), QStringLiteral("completed")}}),
            call(tool::ListAgents, {}),
            call(tool::GetAgent, id("agentId", m_loner)),
            call(tool::SendMessage, QJsonObject{{QStringLiteral("agentId"), m_loner},
                                                {QStringLiteral("message"), message}}),
            call(tool::AgentHistory,
                 QJsonObject{{QStringLiteral("agentId"), m_loner}, {QStringLiteral("limit"), 10}}),
            call(tool::StopAgent, id("agentId", m_stoppable)),
            call(tool::CreateAgent, QJsonObject{{QStringLiteral("name"), QStringLiteral("created")},
                                                {QStringLiteral("cwd"), m_rig->cwd}}),
            call(tool::ListPermissionRequests, {}),
            call(tool::AnswerPermission, QJsonObject{{QStringLiteral("permissionId"), permissionId},
                                                     {QStringLiteral("granted"), true}}),
        };
        QCOMPARE(calls.size(), int(Count));

        const SdkRun run = runSdk(QJsonObject{{QStringLiteral("calls"), calls}}, kToken);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        QSet<QString> called;
        QList<QJsonObject> out;
        for (int i = 0; i < Count; ++i) {
            const QJsonObject row = callRow(run, i);
            const QJsonObject result = sub(row, "result");
            const QString what =
                str(row, "name") + QStringLiteral(": ") +
                QString::fromUtf8(QJsonDocument(row).toJson(QJsonDocument::Compact));
            // The arguments fit the tool's advertised schema, and the call succeeded.
            QVERIFY2(row.value(QLatin1String("argumentsValid")).toBool(), qPrintable(what));
            QVERIFY2(!row.contains(QLatin1String("error")), qPrintable(what));
            QVERIFY2(!result.value(QLatin1String("isError")).toBool(), qPrintable(what));
            QVERIFY2(result.value(QLatin1String("structuredContent")).isObject(), qPrintable(what));
            // The text block carries the same JSON as structuredContent.
            const QJsonArray content = result.value(QLatin1String("content")).toArray();
            QVERIFY2(!content.isEmpty() &&
                         str(content.at(0).toObject(), "type") == QLatin1String("text"),
                     qPrintable(what));
            QCOMPARE(
                QJsonDocument::fromJson(str(content.at(0).toObject(), "text").toUtf8()).object(),
                sub(result, "structuredContent"));
            called.insert(str(row, "name"));
            out << sub(result, "structuredContent");
        }
        QCOMPARE(called.size(), allTools().size());

        const QJsonObject me = out[Whoami];
        QCOMPARE(str(sub(me, "agent"), "id"), m_member);
        QCOMPARE(str(sub(me, "boss"), "id"), m_boss);
        QVERIFY(hasId(out[ListBuildings].value(QLatin1String("buildings")).toArray(), m_building));
        QVERIFY(json(out[BuildingLogs].value(QLatin1String("lines")).toArray())
                    .contains(QLatin1String("building-says-hello")));
        QCOMPARE(str(out[SetStatus], "taskLabel"), QStringLiteral("sdk"));
        QVERIFY(hasId(out[ListTeam].value(QLatin1String("team")).toArray(), m_member));
        const QString spawned = str(sub(out[SpawnAgent], "agent"), "id");
        QCOMPARE(str(sub(out[SpawnAgent], "agent"), "bossId"), m_boss);
        QCOMPARE(str(sub(out[WorkPlan], "workPlan"), "bossId"), m_boss);
        QCOMPARE(str(sub(out[Delegate], "delegation"), "selectedAgentId"), m_member);
        QCOMPARE(str(out[ReportTask], "bossId"), m_boss);
        const QJsonArray agents = out[ListAgents].value(QLatin1String("agents")).toArray();
        QVERIFY(hasId(agents, m_boss) && hasId(agents, m_loner) && hasId(agents, spawned));
        QCOMPARE(str(sub(out[GetAgent], "agent"), "id"), m_loner);
        QCOMPARE(str(out[SendMessage], "agentId"), m_loner);
        QVERIFY(out[AgentHistory].contains(QLatin1String("messages")));
        QCOMPARE(str(out[StopAgent], "agentId"), m_stoppable);
        const QString created = str(sub(out[CreateAgent], "agent"), "id");
        QVERIFY(!created.isEmpty());
        QVERIFY(hasId(out[ListPermissionRequests].value(QLatin1String("requests")).toArray(),
                      permissionId));
        QCOMPARE(str(out[AnswerPermission], "permissionId"), permissionId);

        // What the service now shows.
        const QJsonObject member = m_rig->agent(m_member);
        QCOMPARE(str(member, "taskLabel"), QStringLiteral("sdk"));
        QCOMPARE(str(member, "trackingStatus"), QStringLiteral("working"));
        QVERIFY(json(m_rig->http.get(m_rig->svc->url(QStringLiteral("/api/notifications"))).array())
                    .contains(QLatin1String("sdk title")));
        QCOMPARE(str(m_rig->agent(created), "name"), QStringLiteral("created"));
        const QJsonArray team =
            m_rig->agent(m_boss).value(QLatin1String("subordinateIds")).toArray();
        QVERIFY(team.contains(m_member) && team.contains(spawned));
        QVERIFY(json(m_rig->http
                         .get(m_rig->svc->url(QStringLiteral("/api/work-plans?bossId=") + m_boss))
                         .object())
                    .contains(QLatin1String("sdk plan")));
        QTRY_COMPARE_WITH_TIMEOUT(str(m_rig->agent(m_stoppable), "status"),
                                  QStringLiteral("stopped"), 5000);
        // The grant reached the waiting hook.
        QTRY_VERIFY_WITH_TIMEOUT(hook->isFinished(), 5000);
        QVERIFY2(hook->readAll().contains("allow"), "the hook's reply is no grant");
        // The message reached the loner's CLI, and the delegated task the member's.
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->waitTurns(1, 100, m_loner), 30000);
        bool sawMessage = false, sawTask = false;
        for (int i = 0; i < m_rig->mock.requestCount(); ++i) {
            const QString last = m_rig->mock.lastUserTextOf(i);
            sawMessage = sawMessage || last.endsWith(message);
            sawTask = sawTask || last.contains(QLatin1String("say hi"));
        }
        QVERIFY(sawMessage);
        QTRY_VERIFY_WITH_TIMEOUT(m_rig->waitTurns(1, 100, m_member), 30000);
    }

    // (c) A call that fails (an unknown agent; an invalid value) is a tool result with isError
    // and {error, code}, not a transport failure.
    void failingCallIsAnError() {
        const QJsonArray calls{
            QJsonObject{
                {QStringLiteral("name"), QString(tool::GetAgent)},
                {QStringLiteral("arguments"),
                 QJsonObject{{QStringLiteral("agentId"), QStringLiteral("no-such-agent")}}}},
            QJsonObject{
                {QStringLiteral("name"), QString(tool::Whoami)},
                {QStringLiteral("arguments"),
                 QJsonObject{{QStringLiteral("agentId"), QStringLiteral("no-such-agent")}}}},
            QJsonObject{
                {QStringLiteral("name"), QString(tool::SetStatus)},
                {QStringLiteral("arguments"),
                 QJsonObject{{QStringLiteral("agentId"), m_member},
                             {QStringLiteral("trackingStatus"), QStringLiteral("dreaming")}}}},
        };
        const SdkRun run = runSdk(QJsonObject{{QStringLiteral("calls"), calls}}, kToken);
        QVERIFY2(run.exitCode == 0, qPrintable(run.describe()));
        const QStringList codes{QStringLiteral("not_found"), QStringLiteral("not_found"),
                                QStringLiteral("invalid_value")};
        for (int i = 0; i < calls.size(); ++i) {
            const QJsonObject row = callRow(run, i);
            const QString what =
                QString::fromUtf8(QJsonDocument(row).toJson(QJsonDocument::Compact));
            const QJsonObject result = sub(row, "result");
            QVERIFY2(result.value(QLatin1String("isError")).toBool(), qPrintable(what));
            const QJsonObject error = sub(result, "structuredContent");
            QVERIFY2(!str(error, "error").isEmpty(), qPrintable(what));
            QVERIFY2(str(error, "code") == codes.at(i), qPrintable(what));
        }
    }

    // (d) A wrong token, or none: the SDK's connect fails on the 401 and nothing else is sent.
    void wrongTokenIsRefused_data() {
        QTest::addColumn<QByteArray>("token");
        QTest::newRow("wrong") << QByteArray("not-the-token");
        QTest::newRow("none") << QByteArray();
    }
    void wrongTokenIsRefused() {
        QFETCH(QByteArray, token);
        const SdkRun run = runSdk(QJsonObject{{QStringLiteral("trace"), true}}, token);
        QVERIFY2(run.exitCode == 2, qPrintable(run.describe()));
        const QJsonObject failure = sub(run.doc, "failure");
        QCOMPARE(str(failure, "phase"), QStringLiteral("connect"));
        QCOMPARE(failure.value(QLatin1String("status")).toInt(), 401);
        QCOMPARE(run.doc.value(QLatin1String("trace")).toArray().size(), 1); // the initialize
    }
};

QTEST_MAIN(TestMcpSdk)
#include "tst_mcp_sdk.moc"
