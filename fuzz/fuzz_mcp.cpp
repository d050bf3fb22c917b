// libFuzzer target: the MCP endpoint (POST /mcp) through the real router, controllers and tools
// (ServiceGraph), without sockets. Each input opens a session (as the user or as agent 0, with
// that agent's own scope) and then sends either a fuzzed tools/call or a raw fuzzed JSON-RPC body.
//
// Input layout: [flags] [tool index] [body...]. Flags: bit 0 calls as agent 0 (its own token's
// scope) instead of the user; bit 1 sends the rest as the raw POST body (framing); bit 2 leaves
// the session header out; bit 3 sends a foreign session id. Otherwise the rest is the `arguments`
// of tools/call of the tool picked by index (from tools/list of the user); when it is no JSON
// object it is spliced in as raw text, so malformed arguments reach the parser too. AGENT0,
// AGENT1 and AREA in the bytes become those ids. Commands never run: the graph's agents have a
// CLI that does not exist, so a message or a delegation fails to start a process.
//
// Invariants: every request is answered within 10 s; the status is 200, 202, 204, 400 or 404,
// never 5xx; a 200 is a JSON-RPC 2.0 answer with exactly one of result and error; an error's code
// is one the endpoint documents; a tools/call result has a content array and a boolean isError;
// an agent's call of a boss or user tool is never a result (agent 0 is no boss).

#include "FuzzSupport.h"
#include "ServiceGraph.h"

#include "http/HttpServer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

using namespace flotilla;

namespace {

const QSet<int> kDocumentedCodes{-32700, -32600, -32601, -32602, -32003, -32001};
// What agent 0 (no boss) may call: everything else must be refused.
const QSet<QString> kAgentTools{QStringLiteral("report_task"),    QStringLiteral("notify"),
                                QStringLiteral("set_status"),     QStringLiteral("whoami"),
                                QStringLiteral("list_buildings"), QStringLiteral("building_logs")};

QByteArray compact(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

Reply post(fuzz::ServiceGraph &graph, const QString &agent, const QByteArray &session,
           const QByteArray &body) {
    ApiRequest r;
    r.method = Method::Post;
    r.path = QStringLiteral("/mcp");
    r.body = body;
    r.authenticated = agent.isEmpty();
    r.agentScope = agent;
    r.callerAgent = agent;
    r.mcpSessionId = session;
    Reply reply;
    FUZZ_CHECK(graph.request(r, &reply), "no reply from POST /mcp");
    return reply;
}

QByteArray openSession(fuzz::ServiceGraph &graph, const QString &agent) {
    const Reply r =
        post(graph, agent, {},
             compact({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                      {QStringLiteral("id"), 0},
                      {QStringLiteral("method"), QStringLiteral("initialize")},
                      {QStringLiteral("params"), QJsonObject{{QStringLiteral("protocolVersion"),
                                                              QStringLiteral("2025-06-18")}}}}));
    for (const auto &h : r.headers) {
        if (h.first.compare("Mcp-Session-Id", Qt::CaseInsensitive) == 0)
            return h.second;
    }
    FUZZ_CHECK(false, "initialize opened no session");
    return {};
}

const QStringList &toolNames(fuzz::ServiceGraph &graph) {
    static QStringList names;
    if (names.isEmpty()) {
        const QByteArray session = openSession(graph, {});
        const Reply r = post(graph, {}, session,
                             compact({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), 1},
                                      {QStringLiteral("method"), QStringLiteral("tools/list")}}));
        const QJsonArray tools = QJsonDocument::fromJson(r.body)
                                     .object()
                                     .value(QStringLiteral("result"))
                                     .toObject()
                                     .value(QStringLiteral("tools"))
                                     .toArray();
        for (const QJsonValue &t : tools)
            names.append(t.toObject().value(QStringLiteral("name")).toString());
        FUZZ_CHECK(names.size() >= 18, "tools/list is incomplete");
    }
    return names;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    auto &graph = fuzz::ServiceGraph::get();
    const QStringList &tools = toolNames(graph);
    if (size < 2)
        return 0;
    const uint8_t flags = data[0];
    const QString tool = tools[data[1] % tools.size()];
    QByteArray rest(reinterpret_cast<const char *>(data + 2), qsizetype(size - 2));
    rest.replace("AGENT0", graph.agentIds().value(0).toUtf8())
        .replace("AGENT1", graph.agentIds().value(1).toUtf8())
        .replace("AREA", graph.areaId().toUtf8());

    const QString agent = (flags & 1) ? graph.agentIds().value(0) : QString();
    QByteArray session = openSession(graph, agent);
    if (flags & 4)
        session.clear();
    else if (flags & 8)
        session = openSession(graph, agent.isEmpty() ? graph.agentIds().value(0) : QString());

    QByteArray body;
    const bool raw = (flags & 2) != 0;
    if (raw) {
        body = rest;
    } else {
        QJsonParseError err{};
        const QJsonDocument args = QJsonDocument::fromJson(rest, &err);
        const QByteArray head =
            R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":)" +
            QJsonDocument(QJsonArray{tool}).toJson(QJsonDocument::Compact).mid(1).chopped(1) +
            R"(,"arguments":)";
        body = head +
               (err.error == QJsonParseError::NoError && args.isObject() ? compact(args.object())
                                                                         : rest) +
               "}}";
    }
    const Reply reply = post(graph, agent, session, body);
    FUZZ_CHECK(reply.status == 200 || reply.status == 202 || reply.status == 204 ||
                   reply.status == 400 || reply.status == 404,
               qUtf8Printable(QStringLiteral("POST /mcp -> %1: %2")
                                  .arg(reply.status)
                                  .arg(QString::fromUtf8(reply.body.left(300)))));
    if (reply.status != 202 && reply.status != 204) {
        const QJsonObject answer = QJsonDocument::fromJson(reply.body).object();
        FUZZ_CHECK(answer.value(QStringLiteral("jsonrpc")).toString() == QLatin1String("2.0"),
                   "an answer that is not JSON-RPC 2.0");
        const bool hasResult = answer.contains(QStringLiteral("result"));
        const bool hasError = answer.contains(QStringLiteral("error"));
        FUZZ_CHECK(hasResult != hasError, "an answer needs exactly one of result and error");
        if (hasError) {
            const QJsonObject e = answer.value(QStringLiteral("error")).toObject();
            FUZZ_CHECK(e.value(QStringLiteral("message")).isString(), "an error without message");
            FUZZ_CHECK(kDocumentedCodes.contains(e.value(QStringLiteral("code")).toInt()),
                       qUtf8Printable(QStringLiteral("undocumented error code %1")
                                          .arg(e.value(QStringLiteral("code")).toInt())));
        }
        FUZZ_CHECK(reply.status == 200 || hasError, "a non-200 answer that is no error");
        if (hasResult && !raw) {
            const QJsonObject result = answer.value(QStringLiteral("result")).toObject();
            FUZZ_CHECK(result.value(QStringLiteral("content")).isArray() &&
                           result.value(QStringLiteral("isError")).isBool(),
                       "a tools/call result without content and isError");
            if (!agent.isEmpty())
                FUZZ_CHECK(kAgentTools.contains(tool),
                           qUtf8Printable(QStringLiteral("agent 0 called %1").arg(tool)));
        }
    }
    fuzz::ServiceGraph::settle();
    return 0;
}
