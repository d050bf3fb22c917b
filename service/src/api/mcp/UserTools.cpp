// The tools of the user's own MCP clients (the service token only): what Claude Desktop, another
// Claude Code or any MCP client needs to run the fleet. Each runs the REST route that does the
// same, or, for a permission answer, what the WebSocket's permission_response does.

#include "mcp/McpTools.h"
#include "mcp/ToolSchema.h"
#include "permissions/PermissionBroker.h"
#include "protocol/McpNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>

namespace flotilla::mcp {

namespace k = wire::key;
namespace a = wire::mcp::arg;
namespace t = wire::mcp::tool;

namespace {
QString agentPath(const QString &id, const char *rest = "") {
    return QStringLiteral("/api/agents/") + id + QLatin1String(rest);
}

// The agent id argument of a user tool, checked before it goes into a route's path.
bool pathSafeAgent(const Call &call, const Done &done, QString *id) {
    *id = call.args.value(k::AgentId).toString();
    if (isPathSafeId(*id))
        return true;
    done(Outcome::rpcError(wire::mcp::rpc::InvalidParams,
                           QStringLiteral("'agentId' is not an agent id")));
    return false;
}
} // namespace

QList<Tool> userTools(const ToolKit &kit) {
    using namespace schema;
    QList<Tool> tools;
    tools.append(
        Tool{t::ListAgents,
             QStringLiteral("List agents"),
             QStringLiteral("Every agent of this Flotilla with its status, current task and tool."),
             {},
             {},
             Audience::User,
             true,
             false,
             [kit](const Call &, const Done &done) {
                 kit.rest(Method::Get, QStringLiteral("/api/agents/status"), {}, {}, done,
                          [](const QJsonValue &body) -> QJsonValue {
                              return QJsonObject{{QStringLiteral("agents"), body}};
                          });
             }});
    tools.append(Tool{t::GetAgent,
                      QStringLiteral("Get an agent"),
                      QStringLiteral("One agent's whole record."),
                      QJsonObject{{k::AgentId, string(QStringLiteral("The agent's id"))}},
                      {k::AgentId},
                      Audience::User,
                      true,
                      false,
                      [kit](const Call &call, const Done &done) {
                          QString id;
                          if (pathSafeAgent(call, done, &id))
                              kit.rest(Method::Get, agentPath(id), {}, {}, done,
                                       [](const QJsonValue &body) -> QJsonValue {
                                           return QJsonObject{{QStringLiteral("agent"), body}};
                                       });
                      }});
    tools.append(Tool{
        t::SendMessage,
        QStringLiteral("Send a message"),
        QStringLiteral("Send an agent a message: it starts a turn at once, or is queued behind "
                       "the current one."),
        QJsonObject{{k::AgentId, string(QStringLiteral("The agent's id"))},
                    {k::Message, string(QStringLiteral("The message"))}},
        {k::AgentId, k::Message},
        Audience::User,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            QString id;
            if (pathSafeAgent(call, done, &id))
                kit.rest(Method::Post, agentPath(id, "/message"),
                         QJsonObject{{k::Message, call.args.value(k::Message)}}, {}, done);
        }});
    tools.append(Tool{
        t::CreateAgent,
        QStringLiteral("Create an agent"),
        QStringLiteral("Create an agent: the fields of POST /api/agents (name and cwd required; "
                       "class, provider, model, permissionMode, skills, customInstructions, "
                       "worktree, budget, idleTimeoutSeconds...)."),
        QJsonObject{{k::Name_, string(QStringLiteral("A unique name"))},
                    {k::Cwd, string(QStringLiteral("Its working directory (absolute)"))},
                    {k::Class, string(QStringLiteral("Its class"))},
                    {k::Provider, string(QStringLiteral("claude or codex"))},
                    {k::Model, string(QStringLiteral("The model"))},
                    {QStringLiteral("permissionMode"),
                     oneOf({QStringLiteral("ask"), QStringLiteral("auto")},
                           QStringLiteral("ask (default): tool uses wait for the user"))}},
        {k::Name_, k::Cwd},
        Audience::User,
        false,
        true,
        [kit](const Call &call, const Done &done) {
            kit.rest(Method::Post, QStringLiteral("/api/agents"), call.args, {}, done,
                     [](const QJsonValue &body) -> QJsonValue {
                         return QJsonObject{{QStringLiteral("agent"), body}};
                     });
        }});
    tools.append(
        Tool{t::ListPermissionRequests,
             QStringLiteral("List permission requests"),
             QStringLiteral("The tool uses that wait for the user's answer, across every agent, "
                            "oldest first."),
             {},
             {},
             Audience::User,
             true,
             false,
             [kit](const Call &, const Done &done) {
                 kit.rest(Method::Get, QStringLiteral("/api/permission-requests"), {}, {}, done);
             }});
    tools.append(Tool{
        t::AnswerPermission,
        QStringLiteral("Answer a permission request"),
        QStringLiteral("Allow or deny a pending tool use (as the monitor's and the page's "
                       "buttons do); remember: agent|project|global also stores a standing "
                       "rule."),
        QJsonObject{
            {a::PermissionId, string(QStringLiteral("The request's id"))},
            {a::Granted, boolean(QStringLiteral("true allows, false denies"))},
            {QStringLiteral("remember"),
             oneOf({QStringLiteral("agent"), QStringLiteral("project"), QStringLiteral("global")},
                   QStringLiteral("Also store a standing rule of this scope"))},
            {QStringLiteral("pattern"),
             string(QStringLiteral("The rule's pattern (default: the exact input)"))}},
        {a::PermissionId, a::Granted},
        Audience::User,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            if (Status e = kit.permissions().answer(call.args))
                return done(Outcome::failed(*e));
            done(Outcome::ok(QJsonObject{{k::Success, true},
                                         {a::PermissionId, call.args.value(a::PermissionId)},
                                         {a::Granted, call.args.value(a::Granted)}}));
        }});
    return tools;
}

} // namespace flotilla::mcp
