// The MCP endpoint (POST/DELETE /mcp) against the real service on a free port, over real sockets:
// the JSON-RPC framing, sessions, every refusal (token, Origin, body size, bad params, rights),
// and what each caller sees and may call. Agents' tokens are real ones the service issued; their
// CLIs never start (no agent here is sent a message). The real CLIs calling these tools are in
// tst_mcp_agents, the official SDK client in tst_mcp_sdk.

#include "protocol/McpNames.h"
#include "security/AgentTokens.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QJsonArray>
#include <QTest>

#include <memory>

using namespace flotilla;
using namespace flotilla::test;

namespace t = wire::mcp::tool;

namespace {
const QByteArray kToken = QByteArrayLiteral("mcp-service-token-0123456789");
const QJsonValue kNotification{QJsonValue::Undefined}; // no id: a notification

QByteArray rpc(const QJsonValue &id, const QString &method, const QJsonObject &params = {}) {
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("method"), method}};
    if (!id.isUndefined())
        m.insert(QStringLiteral("id"), id);
    if (!params.isEmpty())
        m.insert(QStringLiteral("params"), params);
    return QJsonDocument(m).toJson(QJsonDocument::Compact);
}

QStringList namesOf(const QJsonArray &tools) {
    QStringList out;
    for (const QJsonValue &v : tools)
        out.append(v.toObject().value(QStringLiteral("name")).toString());
    return out;
}
} // namespace

// One MCP client: its credential and its session.
struct McpClient {
    TestService *svc = nullptr;
    QByteArray token;
    QByteArray session;
    HttpClient http;
    int nextId = 1;

    HttpResponse post(const QByteArray &body, QHash<QByteArray, QByteArray> headers = {}) {
        headers.insert("Content-Type", "application/json");
        headers.insert("Accept", "application/json, text/event-stream");
        if (!token.isEmpty())
            headers.insert("X-Auth-Token", token);
        if (!session.isEmpty() && !headers.contains("Mcp-Session-Id"))
            headers.insert("Mcp-Session-Id", session);
        return http.send("POST", svc->url(QStringLiteral("/mcp")), body, headers);
    }
    bool initialize(const QString &version = QStringLiteral("2025-06-18")) {
        const HttpResponse r =
            post(rpc(nextId++, QStringLiteral("initialize"),
                     {{QStringLiteral("protocolVersion"), version},
                      {QStringLiteral("capabilities"), QJsonObject{}},
                      {QStringLiteral("clientInfo"),
                       QJsonObject{{QStringLiteral("name"), QStringLiteral("tst")},
                                   {QStringLiteral("version"), QStringLiteral("1")}}}}));
        session = r.header("mcp-session-id");
        return r.status == 200 && !session.isEmpty() &&
               post(rpc(kNotification, QStringLiteral("notifications/initialized"))).status == 202;
    }
    // The JSON-RPC answer of a request (its HTTP status in *status).
    QJsonObject request(const QString &method, const QJsonObject &params = {},
                        int *status = nullptr) {
        const HttpResponse r = post(rpc(nextId++, method, params));
        if (status)
            *status = r.status;
        return r.object();
    }
    QJsonObject call(const QString &tool, const QJsonObject &arguments = {}) {
        return request(QStringLiteral("tools/call"),
                       {{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}});
    }
    QStringList toolNames() {
        return namesOf(request(QStringLiteral("tools/list"))
                           .value(QStringLiteral("result"))
                           .toObject()
                           .value(QStringLiteral("tools"))
                           .toArray());
    }
};

QJsonObject resultOf(const QJsonObject &answer) {
    return answer.value(QStringLiteral("result")).toObject();
}
QJsonObject structured(const QJsonObject &answer) {
    return resultOf(answer).value(QStringLiteral("structuredContent")).toObject();
}
bool isToolError(const QJsonObject &answer) {
    return resultOf(answer).value(QStringLiteral("isError")).toBool();
}
int rpcError(const QJsonObject &answer) {
    return answer.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt();
}

class TestMcpProtocol final : public QObject {
    Q_OBJECT

    std::unique_ptr<TestService> svc;
    HttpClient rest{kToken};
    QString workerId, bossId, memberId;

    std::unique_ptr<McpClient> client(const QByteArray &token) {
        auto c = std::make_unique<McpClient>();
        c->svc = svc.get();
        c->token = token;
        return c;
    }
    QString createAgent(const QString &name) {
        const HttpResponse r =
            rest.post(svc->url(QStringLiteral("/api/agents")),
                      {{QStringLiteral("name"), name}, {QStringLiteral("cwd"), svc->workDir()}});
        return r.object().value(QStringLiteral("id")).toString();
    }
    QByteArray agentToken(const QString &agentId) {
        return svc->app().agentTokens().issue(agentId).token;
    }
    QJsonObject agent(const QString &id) {
        return rest.get(svc->url(QStringLiteral("/api/agents/") + id)).object();
    }

private Q_SLOTS:
    void init() {
        svc = std::make_unique<TestService>([](ServerConfig &cfg) { cfg.authToken = kToken; });
        QVERIFY2(svc->start(), qPrintable(svc->lastError()));
        workerId = createAgent(QStringLiteral("worker"));
        memberId = createAgent(QStringLiteral("member"));
        QVERIFY(!workerId.isEmpty() && !memberId.isEmpty());
        // A boss with `member` on its team, over the WebSocket as the clients make one.
        WsClient ws;
        QUrl url = svc->wsUrl();
        url.setQuery(QStringLiteral("token=") + QString::fromLatin1(kToken));
        QVERIFY(ws.open(url));
        ws.sendJson({{QStringLiteral("type"), QStringLiteral("spawn_boss_agent")},
                     {QStringLiteral("payload"),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("chief")},
                                  {QStringLiteral("cwd"), svc->workDir()},
                                  {QStringLiteral("subordinateIds"), QJsonArray{memberId}}}}});
        QVERIFY(ws.waitFor(QStringLiteral("boss_subordinates_updated")));
        bossId = ws.last(QStringLiteral("boss_subordinates_updated"))
                     .value(QStringLiteral("payload"))
                     .toObject()
                     .value(QStringLiteral("bossId"))
                     .toString();
        QVERIFY(!bossId.isEmpty());
    }
    void cleanup() { svc.reset(); }

    void initializeNegotiatesAndOpensASession() {
        auto c = client(kToken);
        const HttpResponse r =
            c->post(rpc(1, QStringLiteral("initialize"),
                        {{QStringLiteral("protocolVersion"), QStringLiteral("2025-11-25")}}));
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("content-type"), QByteArray("application/json"));
        QCOMPARE(r.header("mcp-session-id").size(), 32);
        const QJsonObject result = r.object().value(QStringLiteral("result")).toObject();
        QCOMPARE(result.value(QStringLiteral("protocolVersion")).toString(),
                 QStringLiteral("2025-11-25"));
        QCOMPARE(
            result.value(QStringLiteral("serverInfo")).toObject().value(QStringLiteral("name")),
            QJsonValue(QStringLiteral("flotilla")));
        QVERIFY(result.value(QStringLiteral("capabilities"))
                    .toObject()
                    .contains(QStringLiteral("tools")));
        // A version we do not speak: our newest, and the client decides.
        const HttpResponse future =
            c->post(rpc(2, QStringLiteral("initialize"),
                        {{QStringLiteral("protocolVersion"), QStringLiteral("2099-01-01")}}));
        QCOMPARE(future.object()
                     .value(QStringLiteral("result"))
                     .toObject()
                     .value(QStringLiteral("protocolVersion"))
                     .toString(),
                 QStringLiteral("2025-11-25"));
        QVERIFY(future.header("mcp-session-id") != r.header("mcp-session-id"));
        // Then the session works: ping.
        c->session = r.header("mcp-session-id");
        const QJsonObject pong = c->request(QStringLiteral("ping"));
        QVERIFY(pong.contains(QStringLiteral("result")));
    }

    void eachCallerSeesItsOwnTools() {
        auto user = client(kToken);
        QVERIFY(user->initialize());
        const QStringList all = user->toolNames();
        QCOMPARE(all.size(), 18);
        for (const char *name : {"report_task", "spawn_agent", "list_agents", "answer_permission",
                                 "create_agent", "list_permission_requests", "send_message"})
            QVERIFY2(all.contains(QLatin1String(name)), name);

        auto worker = client(agentToken(workerId));
        QVERIFY(worker->initialize());
        QCOMPARE(worker->toolNames(), (QStringList{t::ReportTask, t::Notify, t::SetStatus,
                                                   t::Whoami, t::ListBuildings, t::BuildingLogs}));
        auto boss = client(agentToken(bossId));
        QVERIFY(boss->initialize());
        const QStringList bossTools = boss->toolNames();
        QCOMPARE(bossTools.size(), 12);
        QVERIFY(bossTools.contains(t::SpawnAgent) && bossTools.contains(t::AgentHistory));
        QVERIFY(!bossTools.contains(t::ListAgents));

        // Every schema is an object schema; the user's agent tools name the agent they act as.
        const QJsonArray tools = user->request(QStringLiteral("tools/list"))
                                     .value(QStringLiteral("result"))
                                     .toObject()
                                     .value(QStringLiteral("tools"))
                                     .toArray();
        for (const QJsonValue &v : tools) {
            const QJsonObject schema = v.toObject().value(QStringLiteral("inputSchema")).toObject();
            QCOMPARE(schema.value(QStringLiteral("type")).toString(), QStringLiteral("object"));
            if (v.toObject().value(QStringLiteral("name")).toString() == t::ReportTask)
                QVERIFY(schema.value(QStringLiteral("required"))
                            .toArray()
                            .contains(QStringLiteral("agentId")));
        }
    }

    void agentToolsActAsTheAgent() {
        auto worker = client(agentToken(workerId));
        QVERIFY(worker->initialize());
        const QJsonObject set =
            worker->call(t::SetStatus, {{QStringLiteral("taskLabel"), QStringLiteral("indexing")}});
        QVERIFY2(!isToolError(set), QJsonDocument(set).toJson().constData());
        QCOMPARE(agent(workerId).value(QStringLiteral("taskLabel")).toString(),
                 QStringLiteral("indexing"));
        // The structured result is the route's answer; the text content is the same JSON.
        QCOMPARE(structured(set).value(QStringLiteral("taskLabel")).toString(),
                 QStringLiteral("indexing"));
        const QString text = resultOf(set)
                                 .value(QStringLiteral("content"))
                                 .toArray()
                                 .first()
                                 .toObject()
                                 .value(QStringLiteral("text"))
                                 .toString();
        QCOMPARE(QJsonDocument::fromJson(text.toUtf8()).object(), structured(set));

        const QJsonObject me = worker->call(t::Whoami);
        QCOMPARE(
            structured(me).value(QStringLiteral("agent")).toObject().value(QStringLiteral("name")),
            QJsonValue(QStringLiteral("worker")));
        QVERIFY(structured(me).value(QStringLiteral("boss")).isNull());

        const QJsonObject note =
            worker->call(t::Notify, {{QStringLiteral("title"), QStringLiteral("Built")},
                                     {QStringLiteral("message"), QStringLiteral("all green")}});
        QVERIFY(!isToolError(note));
        const QJsonArray notes = rest.get(svc->url(QStringLiteral("/api/notifications"))).array();
        QVERIFY(!notes.isEmpty());
        QCOMPARE(notes.first().toObject().value(QStringLiteral("agentId")).toString(), workerId);

        const QJsonObject report =
            worker->call(t::ReportTask, {{QStringLiteral("summary"), QStringLiteral("done")},
                                         {QStringLiteral("status"), QStringLiteral("completed")}});
        QVERIFY(!isToolError(report));
        QCOMPARE(structured(report).value(QStringLiteral("forwarded")).toBool(), false);

        // A member sees its boss and team.
        auto member = client(agentToken(memberId));
        QVERIFY(member->initialize());
        const QJsonObject mine = structured(member->call(t::Whoami));
        QCOMPARE(mine.value(QStringLiteral("boss")).toObject().value(QStringLiteral("id")),
                 QJsonValue(bossId));
    }

    // The route's own validation comes back as a tool error with its code; the schema's as
    // JSON-RPC -32602.
    void badParamsAreRefused() {
        auto worker = client(agentToken(workerId));
        QVERIFY(worker->initialize());
        QCOMPARE(rpcError(worker->call(QStringLiteral("no_such_tool"))), -32602);
        QCOMPARE(rpcError(worker->call(t::ReportTask,
                                       {{QStringLiteral("summary"), QStringLiteral("x")}})),
                 -32602); // status missing
        QCOMPARE(rpcError(worker->call(t::ReportTask,
                                       {{QStringLiteral("summary"), 5},
                                        {QStringLiteral("status"), QStringLiteral("completed")}})),
                 -32602); // wrong type
        QCOMPARE(rpcError(worker->call(t::SetStatus, {{QStringLiteral("colour"), 1}})), -32602);
        QCOMPARE(rpcError(worker->request(
                     QStringLiteral("tools/call"),
                     {{QStringLiteral("name"), t::Whoami}, {QStringLiteral("arguments"), 3}})),
                 -32602);
        QCOMPARE(rpcError(worker->request(QStringLiteral("tools/call"))), -32602); // no name
        QCOMPARE(rpcError(worker->request(QStringLiteral("resources/list"))), -32601);
        const QJsonObject invalid =
            worker->call(t::ReportTask, {{QStringLiteral("summary"), QStringLiteral("x")},
                                         {QStringLiteral("status"), QStringLiteral("maybe")}});
        QVERIFY(isToolError(invalid));
        QCOMPARE(structured(invalid).value(QStringLiteral("status")).toInt(), 422);
        QVERIFY(!structured(invalid).value(QStringLiteral("code")).toString().isEmpty());
    }

    void rightsFollowTheToken() {
        const int agentsBefore = rest.get(svc->url(QStringLiteral("/api/agents"))).array().size();
        auto worker = client(agentToken(workerId));
        QVERIFY(worker->initialize());
        // A subordinate calling a boss tool, and an agent calling the user's.
        QCOMPARE(rpcError(worker->call(t::SpawnAgent,
                                       {{QStringLiteral("name"), QStringLiteral("rogue")}})),
                 -32003);
        QCOMPARE(rpcError(worker->call(t::ListAgents)), -32003);
        QCOMPARE(rpcError(worker->call(t::StopAgent, {{QStringLiteral("agentId"), memberId}})),
                 -32003);
        // An agent tool acts as the caller: an agentId argument is not accepted.
        QCOMPARE(rpcError(worker->call(
                     t::SetStatus, {{QStringLiteral("agentId"), memberId},
                                    {QStringLiteral("taskLabel"), QStringLiteral("hijacked")}})),
                 -32602);
        QVERIFY(agent(memberId).value(QStringLiteral("taskLabel")).toString().isEmpty());
        QCOMPARE(rest.get(svc->url(QStringLiteral("/api/agents"))).array().size(), agentsBefore);

        // A boss on its team, not on others.
        auto boss = client(agentToken(bossId));
        QVERIFY(boss->initialize());
        QVERIFY(!isToolError(boss->call(t::AgentHistory, {{QStringLiteral("agentId"), memberId}})));
        QCOMPARE(rpcError(boss->call(t::AgentHistory, {{QStringLiteral("agentId"), workerId}})),
                 -32003);
        const QJsonObject team = structured(boss->call(t::ListTeam));
        QCOMPARE(team.value(QStringLiteral("team")).toArray().size(), 1);
        const QJsonObject spawned =
            boss->call(t::SpawnAgent, {{QStringLiteral("name"), QStringLiteral("helper")}});
        QVERIFY2(!isToolError(spawned), QJsonDocument(spawned).toJson().constData());
        const QString helperId = structured(spawned)
                                     .value(QStringLiteral("agent"))
                                     .toObject()
                                     .value(QStringLiteral("id"))
                                     .toString();
        QCOMPARE(agent(helperId).value(QStringLiteral("bossId")).toString(), bossId);
        const QJsonObject plan = boss->call(
            t::WorkPlan,
            {{QStringLiteral("title"), QStringLiteral("Ship")},
             {QStringLiteral("tasks"),
              QJsonArray{QJsonObject{{QStringLiteral("description"), QStringLiteral("build")},
                                     {QStringLiteral("agentName"), QStringLiteral("helper")}}}}});
        QVERIFY2(!isToolError(plan), QJsonDocument(plan).toJson().constData());
        const QString planId = structured(plan)
                                   .value(QStringLiteral("workPlan"))
                                   .toObject()
                                   .value(QStringLiteral("id"))
                                   .toString();
        // Replacing it: the old one is cancelled, the new one proposed.
        const QJsonObject replaced = boss->call(
            t::WorkPlan,
            {{QStringLiteral("title"), QStringLiteral("Ship v2")},
             {QStringLiteral("planId"), planId},
             {QStringLiteral("tasks"),
              QJsonArray{QJsonObject{{QStringLiteral("description"), QStringLiteral("test")}}}}});
        QVERIFY(!isToolError(replaced));
        QCOMPARE(rest.get(svc->url(QStringLiteral("/api/work-plans/") + planId))
                     .object()
                     .value(QStringLiteral("status"))
                     .toString(),
                 QStringLiteral("cancelled"));
        // Delegating to someone off the team is the action's error, not a crash.
        const QJsonObject offTeam =
            boss->call(t::Delegate, {{QStringLiteral("agentId"), workerId},
                                     {QStringLiteral("task"), QStringLiteral("x")}});
        QVERIFY(isToolError(offTeam));

        // The user names whom a boss or agent tool acts as.
        auto user = client(kToken);
        QVERIFY(user->initialize());
        QCOMPARE(rpcError(user->call(t::ListTeam)), -32602); // bossId missing
        QCOMPARE(structured(user->call(t::ListTeam, {{QStringLiteral("bossId"), bossId}}))
                     .value(QStringLiteral("team"))
                     .toArray()
                     .size(),
                 2);
        QVERIFY(isToolError(user->call(t::ListTeam, {{QStringLiteral("bossId"), workerId}})));
        QVERIFY(!isToolError(user->call(
            t::SetStatus, {{QStringLiteral("agentId"), workerId},
                           {QStringLiteral("trackingStatus"), QStringLiteral("working")}})));
        QCOMPARE(agent(workerId).value(QStringLiteral("trackingStatus")).toString(),
                 QStringLiteral("working"));
        QCOMPARE(rpcError(user->call(t::GetAgent,
                                     {{QStringLiteral("agentId"), QStringLiteral("../health")}})),
                 -32602);
        QCOMPARE(structured(
                     user->call(t::GetAgent, {{QStringLiteral("agentId"), QStringLiteral("nope")}}))
                     .value(QStringLiteral("status"))
                     .toInt(),
                 404);
        const QJsonObject listed = structured(user->call(t::ListAgents));
        QCOMPARE(listed.value(QStringLiteral("agents")).toArray().size(), agentsBefore + 1);
        QCOMPARE(structured(user->call(t::ListPermissionRequests))
                     .value(QStringLiteral("requests"))
                     .toArray()
                     .size(),
                 0);
        const QJsonObject unknownAnswer =
            user->call(t::AnswerPermission, {{QStringLiteral("permissionId"), QStringLiteral("p1")},
                                             {QStringLiteral("granted"), true}});
        QVERIFY(isToolError(unknownAnswer));
        QCOMPARE(structured(unknownAnswer).value(QStringLiteral("status")).toInt(), 404);
        const QJsonObject created =
            user->call(t::CreateAgent, {{QStringLiteral("name"), QStringLiteral("fresh")},
                                        {QStringLiteral("cwd"), svc->workDir()},
                                        {QStringLiteral("taskLabel"), QStringLiteral("x")}});
        QVERIFY(isToolError(created)); // taskLabel is no create field: the route's 422
        QVERIFY(!isToolError(
            user->call(t::CreateAgent, {{QStringLiteral("name"), QStringLiteral("fresh")},
                                        {QStringLiteral("cwd"), svc->workDir()}})));
    }

    void credentialsAreChecked() {
        auto none = client({});
        HttpResponse r = none->post(rpc(1, QStringLiteral("initialize")));
        QCOMPARE(r.status, 401);
        auto wrong = client(QByteArrayLiteral("wrong-token"));
        QCOMPARE(wrong->post(rpc(1, QStringLiteral("initialize"))).status, 401);
        // A revoked agent token (its process ended) opens nothing.
        const QByteArray token = agentToken(workerId);
        svc->app().agentTokens().revoke(token);
        auto revoked = client(token);
        QCOMPARE(revoked->post(rpc(1, QStringLiteral("initialize"))).status, 401);
        // The token in the URL is not a credential.
        HttpClient anonymous;
        QUrl url = svc->url(QStringLiteral("/mcp"));
        url.setQuery(QStringLiteral("token=") + QString::fromLatin1(kToken));
        QCOMPARE(anonymous
                     .send("POST", url, rpc(1, QStringLiteral("initialize")),
                           {{"Content-Type", "application/json"}})
                     .status,
                 401);
    }

    void theTransportIsGuarded() {
        auto user = client(kToken);
        QVERIFY(user->initialize());
        // Another site's page: refused before anything runs.
        QCOMPARE(
            user->post(rpc(9, QStringLiteral("tools/list")), {{"Origin", "http://evil.example"}})
                .status,
            403);
        // Oversized body: the port's limit.
        const QByteArray huge(2 * 1024 * 1024, 'x');
        const HttpResponse big = user->post(huge);
        QCOMPARE(big.status, 413);
        // Malformed JSON-RPC.
        QCOMPARE(user->post("{bad").status, 400);
        QCOMPARE(user->post("{bad")
                     .object()
                     .value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("code")),
                 QJsonValue(-32700));
        QCOMPARE(user->post("[" + rpc(1, QStringLiteral("ping")) + "]").status, 400);
        QCOMPARE(user->post(R"({"id":1,"method":"ping"})").status, 400); // no jsonrpc
        QCOMPARE(user->post(R"({"jsonrpc":"2.0","id":true,"method":"ping"})").status, 400);
        QCOMPARE(user->post(R"({"jsonrpc":"2.0","id":1,"method":5})").status, 400);
        QCOMPARE(user->post(R"({"jsonrpc":"2.0","id":1,"method":"ping","params":[1]})")
                     .object()
                     .value(QStringLiteral("error"))
                     .toObject()
                     .value(QStringLiteral("code")),
                 QJsonValue(-32602));
        // A response from the client (we never ask it anything) and a notification: 202.
        QCOMPARE(user->post(R"({"jsonrpc":"2.0","id":1,"result":{}})").status, 202);
        QCOMPARE(user->post(rpc(kNotification, QStringLiteral("notifications/cancelled"))).status,
                 202);
        // The clients' OAuth discovery probes: a plain 404 (no OAuth here), never a crash.
        for (const char *path :
             {"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource",
              "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}) {
            const HttpResponse probe = user->http.send("GET", svc->url(QLatin1String(path)), {},
                                                       {{"X-Auth-Token", kToken}});
            QCOMPARE(probe.status, 404);
            QVERIFY(probe.isJson());
        }
        QCOMPARE(user->http
                     .send("POST", svc->url(QStringLiteral("/register")), "{}",
                           {{"X-Auth-Token", kToken}, {"Content-Type", "application/json"}})
                     .status,
                 404);
        // GET (the server-to-client stream) is not offered: 405 for the user and for an agent.
        const HttpResponse get = user->http.send("GET", svc->url(QStringLiteral("/mcp")), {},
                                                 {{"X-Auth-Token", kToken}});
        QCOMPARE(get.status, 405);
        QCOMPARE(get.header("allow"), QByteArray("POST, DELETE"));
        QCOMPARE(user->http
                     .send("GET", svc->url(QStringLiteral("/mcp")), {},
                           {{"X-Auth-Token", agentToken(workerId)}})
                     .status,
                 405);
    }

    void sessionsBelongToTheirCredential() {
        auto user = client(kToken);
        // Before initialize: a probe of an unknown method is answered as such (Claude Code's
        // server/discover), tools need a session.
        int status = 0;
        QJsonObject probe = user->request(QStringLiteral("server/discover"), {}, &status);
        QCOMPARE(status, 200);
        QCOMPARE(rpcError(probe), -32601);
        user->request(QStringLiteral("tools/list"), {}, &status);
        QCOMPARE(status, 400);
        QVERIFY(user->initialize());
        QCOMPARE(user->toolNames().size(), 18);
        // Unknown session: 404, initialize again.
        HttpResponse r = user->post(rpc(5, QStringLiteral("tools/list")),
                                    {{"Mcp-Session-Id", "0123456789abcdef0123456789abcdef"}});
        QCOMPARE(r.status, 404);
        // The user's session presented with an agent's token is unknown to that agent.
        auto worker = client(agentToken(workerId));
        worker->session = user->session;
        worker->request(QStringLiteral("tools/list"), {}, &status);
        QCOMPARE(status, 404);
        // An unsupported protocol version header.
        r = user->post(rpc(6, QStringLiteral("tools/list")),
                       {{"MCP-Protocol-Version", "1999-01-01"}});
        QCOMPARE(r.status, 400);
        // DELETE ends it; then it is gone.
        const QHash<QByteArray, QByteArray> headers{{"X-Auth-Token", kToken},
                                                    {"Mcp-Session-Id", user->session}};
        QCOMPARE(user->http.send("DELETE", svc->url(QStringLiteral("/mcp")), {}, headers).status,
                 204);
        user->request(QStringLiteral("tools/list"), {}, &status);
        QCOMPARE(status, 404);
        QCOMPARE(user->http.send("DELETE", svc->url(QStringLiteral("/mcp")), {}, headers).status,
                 404);
        QCOMPARE(
            user->http
                .send("DELETE", svc->url(QStringLiteral("/mcp")), {}, {{"X-Auth-Token", kToken}})
                .status,
            400);
    }
};

QTEST_MAIN(TestMcpProtocol)
#include "tst_mcp_protocol.moc"
