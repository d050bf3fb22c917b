#pragma once
// The tools of flotillad's MCP server and who may call which (docs/api.md "MCP", docs/security.md
// "MCP rights"). A tool is not a second implementation of anything: it runs the REST route that
// does the same (in process, through the router, its auth gate and its handler), or, where no
// route exists, the engine call a fenced block or a WebSocket message makes (spawn, delegate,
// work plan, a permission answer).
//
// Rights are decided here, once, before a tool runs:
//  - agent tools: every agent, acting as itself; its REST calls carry its own token's scope, so
//    the router grants exactly what its token grants (report-task, notify, its own PATCH...);
//  - boss tools: a boss, as itself (spawn, delegate, work plan, its team's list);
//  - team tools: a boss on a member of its team (history, stop), the user on any agent;
//  - user tools: the service token only (what the user's own MCP client needs to run the fleet).
// The user (the service token) may call every tool; an agent or boss tool then names the agent
// or boss it acts as (`agentId`, `bossId`).

#include "http/ApiTypes.h"
#include "mcp/McpSessions.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <functional>

namespace flotilla {
class AgentRegistry;
class PermissionBroker;
namespace boss {
class BossService;
}
} // namespace flotilla

namespace flotilla::mcp {

// How a call ends: a JSON-RPC error (nothing ran: unknown tool, bad arguments, outside the
// caller's rights) or an MCP tool result, which may say isError (the action itself failed).
struct Outcome {
    int rpcCode = 0; // non-zero: a JSON-RPC error with `message`
    QString message;
    QJsonObject result;

    static Outcome rpcError(int code, QString message);
    // {content: [{type: text, text: <compact JSON>}], structuredContent, isError: false}; an
    // array is wrapped as {items: [...]}.
    static Outcome ok(const QJsonValue &value);
    // isError: true, structuredContent {error, code, status?}.
    static Outcome failed(const Error &error);
    // A route's answer: 2xx -> ok(body), else failed with its {error, code} and status.
    static Outcome fromReply(const Reply &reply);
};
using Done = std::function<void(const Outcome &)>;

// The router, in process (HttpServer::dispatchInProcess).
using Dispatch = std::function<void(ApiRequest, ReplyCallback)>;

struct ToolDeps {
    Dispatch dispatch;
    AgentRegistry &agents;
    boss::BossService &boss;
    PermissionBroker &permissions;
};

// Agent: every agent, as itself. Any: every agent and the user, acting as nobody (read-only
// views). Boss: a boss, as itself. Team: a boss on a member of its team, the user on any agent.
// User: the service token only.
enum class Audience { Agent, Any, Boss, Team, User };

// One call, after the rights check. `self` is who the tool acts as or on: the agent (Agent),
// the boss (Boss), the target member or agent (Team); empty for User tools.
struct Call {
    Caller caller;
    QString self;
    QJsonObject args; // without the `agentId`/`bossId` that only named `self` for the user
};

struct Tool {
    QLatin1String name;
    QString title;
    QString description;
    QJsonObject properties; // JSON Schema of each argument
    QStringList required;
    Audience audience = Audience::Agent;
    bool readOnly = false;
    bool openArguments = false; // passes arguments it does not declare on (create_agent)
    std::function<void(const Call &, const Done &)> run;
};

// What the tool definitions (AgentTools.cpp, UserTools.cpp) run their calls through.
class ToolKit final {
public:
    explicit ToolKit(ToolDeps deps)
        : m_deps(std::move(deps)) {}

    // Runs a REST route in process. `asAgent` non-empty: with that agent's own token's rights
    // (the router refuses what its token may not do); empty: with full rights, for the user or
    // for a boss whose right over its team was checked already. `shape` turns a 2xx body into the
    // tool's result (default: the body as it is).
    using Shape = std::function<QJsonValue(const QJsonValue &body)>;
    void rest(Method method, const QString &path, const QJsonObject &body, const QString &asAgent,
              const Done &done, const Shape &shape = {}, const QUrlQuery &query = {}) const;

    AgentRegistry &agents() const { return m_deps.agents; }
    boss::BossService &boss() const { return m_deps.boss; }
    PermissionBroker &permissions() const { return m_deps.permissions; }

private:
    ToolDeps m_deps;
};

QList<Tool> agentTools(const ToolKit &kit); // AgentTools.cpp: agent, boss and team tools
QList<Tool> userTools(const ToolKit &kit);  // UserTools.cpp

class Tools final {
public:
    explicit Tools(ToolDeps deps);

    // The tools `caller` may call, as MCP's tools/list entries.
    QJsonArray list(const Caller &caller) const;
    // Runs tool `name` for `caller`; `done` gets the outcome, at once or later (a route that
    // answers asynchronously).
    void call(const Caller &caller, const QString &name, const QJsonObject &arguments,
              const Done &done) const;
    int count() const { return int(m_tools.size()); }

private:
    bool offers(const Tool &tool, const Caller &caller) const;
    QJsonObject schemaFor(const Tool &tool, const Caller &caller) const;
    Outcome checkArguments(const Tool &tool, const Caller &caller,
                           const QJsonObject &arguments) const;
    Outcome resolve(const Tool &tool, const Caller &caller, const QJsonObject &arguments,
                    Call *call) const;

    ToolKit m_kit;
    QList<Tool> m_tools;
};

// An id the tools put into a route's path: non-empty, at most 200 characters, no '/', '?', '#'.
bool isPathSafeId(const QString &id);

} // namespace flotilla::mcp
