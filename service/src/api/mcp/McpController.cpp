#include "mcp/McpController.h"

#include "http/HttpServer.h"
#include "mcp/McpLogging.h"
#include "protocol/McpNames.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla {

namespace m = wire::mcp::method;
namespace rpc = wire::mcp::rpc;
using McpCaller = mcp::Caller;

namespace {
constexpr int kSessionNotFound = -32001; // the transport's "initialize again"

const QString kJsonRpc = QStringLiteral("jsonrpc");

Reply jsonRpc(const QJsonObject &message, int status = 200) {
    Reply r = Reply::rawJson(QJsonDocument(message).toJson(QJsonDocument::Compact), status);
    return r;
}

Reply result(const QJsonValue &id, const QJsonObject &value) {
    return jsonRpc(QJsonObject{{kJsonRpc, QStringLiteral("2.0")},
                               {QStringLiteral("id"), id},
                               {QStringLiteral("result"), value}});
}

// An error answer. A request we could read gets HTTP 200 (the error is JSON-RPC's); one we could
// not (malformed, no session) gets the HTTP status the transport specifies.
Reply error(const QJsonValue &id, int code, const QString &message, int status = 200) {
    return jsonRpc(
        QJsonObject{{kJsonRpc, QStringLiteral("2.0")},
                    {QStringLiteral("id"), id.isUndefined() ? QJsonValue() : id},
                    {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code},
                                                          {QStringLiteral("message"), message}}}},
        status);
}

Reply accepted() { // a notification or a response: nothing to answer
    Reply r;
    r.status = 202;
    r.contentType.clear();
    return r;
}

QString who(const McpCaller &caller) {
    return caller.isUser() ? QStringLiteral("the user") : QStringLiteral("agent ") + caller.agentId;
}

QString instructions() {
    return QStringLiteral(
        "Flotilla runs coding agents. An agent acts through these tools as itself: report_task "
        "ends a delegated task, notify tells the user something, set_status shows what it is "
        "doing, whoami says who it is, its boss and its team. A boss runs its team with "
        "list_team, spawn_agent, delegate, agent_history, stop_agent and work_plan.");
}
} // namespace

const QStringList &McpController::protocolVersions() {
    static const QStringList versions{QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                      QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
    return versions;
}

McpController::McpController(mcp::ToolDeps deps, Clock clock)
    : m_sessions(std::move(clock))
    , m_tools(std::move(deps)) {
}

McpController::~McpController() = default;

void McpController::registerRoutes(HttpServer &http) {
    // Access::Agent: agents reach it with their own token (also on the agents' listener); the
    // tools decide what each caller may do. GET (the optional server-to-client SSE stream) is not
    // offered: 405, which both CLIs and the SDK accept. It is a route of its own so that an
    // agent's token gets that 405 too (the router refuses an agent's token on a method no agent
    // route has with 403, and every agent's CLI asks for the stream once).
    const QString path = wire::mcp::Path;
    http.route(
        Method::Get, path,
        [](const ApiRequest &) {
            Reply r = Error{ErrorKind::MethodNotAllowed, wire::code::MethodNotAllowed,
                            QStringLiteral("GET /mcp: this server sends no event stream; POST "
                                           "JSON-RPC messages")};
            r.headers.append({QByteArrayLiteral("Allow"), QByteArrayLiteral("POST, DELETE")});
            return r;
        },
        Access::Agent);
    http.routeAsync(
        Method::Post, path,
        [this](const ApiRequest &r, const ReplyCallback &done) { post(r, done); }, Access::Agent);
    http.route(
        Method::Delete, path, [this](const ApiRequest &r) { return remove(r); }, Access::Agent);
}

void McpController::post(const ApiRequest &request, const ReplyCallback &done) {
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return done(error({}, rpc::ParseError,
                          QStringLiteral("the body is not JSON: %1 at offset %2")
                              .arg(parseError.errorString())
                              .arg(parseError.offset),
                          400));
    if (doc.isArray())
        return done(error({}, rpc::InvalidRequest,
                          QStringLiteral("JSON-RPC batches are not supported (MCP 2025-06-18 "
                                         "removed them): send one message per request"),
                          400));
    const QJsonObject message = doc.object();
    if (!doc.isObject() || message.value(kJsonRpc).toString() != QLatin1String("2.0"))
        return done(error({}, rpc::InvalidRequest,
                          QStringLiteral("not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\")"),
                          400));
    const QJsonValue id = message.value(QStringLiteral("id"));
    const QJsonValue methodValue = message.value(QStringLiteral("method"));
    if (methodValue.isUndefined()) {
        // A response to a request of ours: this server sends none, so there is nothing to match.
        if (!id.isUndefined() && (message.contains(QStringLiteral("result")) ||
                                  message.contains(QStringLiteral("error"))))
            return done(accepted());
        return done(error(id, rpc::InvalidRequest, QStringLiteral("no 'method'"), 400));
    }
    if (!methodValue.isString())
        return done(
            error(id, rpc::InvalidRequest, QStringLiteral("'method' must be a string"), 400));
    const bool notification = id.isUndefined();
    if (!notification && !id.isString() && !id.isDouble())
        return done(error({}, rpc::InvalidRequest,
                          QStringLiteral("'id' must be a string or a number"), 400));
    const QJsonValue paramsValue = message.value(QStringLiteral("params"));
    if (!paramsValue.isUndefined() && !paramsValue.isObject())
        return done(error(id, rpc::InvalidParams, QStringLiteral("'params' must be an object")));
    const QJsonObject params = paramsValue.toObject();
    const QString method = methodValue.toString();
    const McpCaller caller{request.callerAgent};

    if (method == m::Initialize)
        return done(notification ? accepted() : initialize(caller, id, params));
    if (request.mcpSessionId.isEmpty()) {
        // Before initialize, clients probe (Claude Code's server/discover): unknown methods are
        // answered as such, so they fall back to initialize.
        if (method == m::Ping && !notification)
            return done(result(id, {}));
        if (method == m::ToolsList || method == m::ToolsCall)
            return done(error(id, rpc::InvalidRequest,
                              QStringLiteral("no Mcp-Session-Id header: call initialize first"),
                              400));
        if (notification)
            return done(accepted());
        return done(error(id, rpc::MethodNotFound,
                          QStringLiteral("method '%1' not found").arg(method.left(80))));
    }
    if (!m_sessions.use(QString::fromLatin1(request.mcpSessionId), caller))
        return done(error(id, kSessionNotFound,
                          QStringLiteral("session not found (ended, expired, or opened with "
                                         "another credential): initialize again"),
                          404));
    if (!request.mcpProtocolVersion.isEmpty() &&
        !protocolVersions().contains(QString::fromLatin1(request.mcpProtocolVersion)))
        return done(error(id, rpc::InvalidRequest,
                          QStringLiteral("unsupported MCP-Protocol-Version '%1' (this server "
                                         "speaks %2)")
                              .arg(QString::fromLatin1(request.mcpProtocolVersion.left(40)),
                                   protocolVersions().join(QStringLiteral(", "))),
                          400));
    if (notification)
        return done(accepted()); // initialized, cancelled, progress: nothing to do
    if (method == m::Ping)
        return done(result(id, {}));
    if (method == m::ToolsList)
        return done(result(id, QJsonObject{{QStringLiteral("tools"), m_tools.list(caller)}}));
    if (method == m::ToolsCall)
        return callTool(caller, id, params, done);
    return done(error(id, rpc::MethodNotFound,
                      QStringLiteral("method '%1' not found").arg(method.left(80))));
}

Reply McpController::initialize(const McpCaller &caller, const QJsonValue &id,
                                const QJsonObject &params) {
    const QString asked = params.value(QStringLiteral("protocolVersion")).toString();
    // The client's version when we speak it, else our newest: the client decides whether it can
    // go on with that.
    const QString version =
        protocolVersions().contains(asked) ? asked : protocolVersions().constFirst();
    const QString sessionId = m_sessions.open(caller, version);
    const QString client = params.value(QStringLiteral("clientInfo"))
                               .toObject()
                               .value(QStringLiteral("name"))
                               .toString()
                               .left(80);
    qCInfo(lcMcp).noquote() << "session opened for" << who(caller) << "by"
                            << (client.isEmpty() ? QStringLiteral("a client") : client)
                            << "protocol" << version;
    Reply r = result(
        id,
        QJsonObject{{QStringLiteral("protocolVersion"), version},
                    {QStringLiteral("capabilities"),
                     QJsonObject{{QStringLiteral("tools"),
                                  QJsonObject{{QStringLiteral("listChanged"), false}}}}},
                    {QStringLiteral("serverInfo"),
                     QJsonObject{{QStringLiteral("name"), wire::mcp::ServerName},
                                 {QStringLiteral("title"), QStringLiteral("Flotilla")},
                                 {QStringLiteral("version"), QStringLiteral(FLOTILLA_VERSION)}}},
                    {QStringLiteral("instructions"), instructions()}});
    r.headers.append({QByteArrayLiteral("Mcp-Session-Id"), sessionId.toLatin1()});
    return r;
}

void McpController::callTool(const McpCaller &caller, const QJsonValue &id,
                             const QJsonObject &params, const ReplyCallback &done) const {
    const QJsonValue name = params.value(QStringLiteral("name"));
    if (!name.isString() || name.toString().isEmpty())
        return done(error(id, rpc::InvalidParams,
                          QStringLiteral("tools/call needs 'name', the tool's name")));
    const QJsonValue arguments = params.value(QStringLiteral("arguments"));
    if (!arguments.isUndefined() && !arguments.isNull() && !arguments.isObject())
        return done(error(id, rpc::InvalidParams, QStringLiteral("'arguments' must be an object")));
    m_tools.call(caller, name.toString(), arguments.toObject(),
                 [id, done](const mcp::Outcome &outcome) {
                     done(outcome.rpcCode ? error(id, outcome.rpcCode, outcome.message)
                                          : result(id, outcome.result));
                 });
}

Reply McpController::remove(const ApiRequest &request) {
    if (request.mcpSessionId.isEmpty())
        return Error::badRequest(wire::code::MissingField,
                                 QStringLiteral("DELETE /mcp needs the Mcp-Session-Id header"));
    if (!m_sessions.close(QString::fromLatin1(request.mcpSessionId),
                          McpCaller{request.callerAgent}))
        return Error::notFound(wire::code::NotFound, QStringLiteral("no such MCP session"));
    qCInfo(lcMcp).noquote() << "session closed by" << who(McpCaller{request.callerAgent});
    return Reply::noContent();
}

} // namespace flotilla
