// The tools every agent has (report_task, notify, set_status, whoami, the buildings' views) and
// those of a boss (its team, spawn, delegate, history, stop, work plan). Rights: McpTools.h.

#include "boss/BossService.h"
#include "domain/AgentRegistry.h"
#include "mcp/McpTools.h"
#include "mcp/ToolSchema.h"
#include "protocol/BossNames.h"
#include "protocol/HostNames.h"
#include "protocol/McpNames.h"
#include "protocol/SandboxNames.h"
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

// Who a self action runs as: the agent itself (its own token's rights), or, for the user, with
// full rights on the agent it named.
QString asSelf(const Call &call) {
    return call.caller.isUser() ? QString() : call.self;
}

// What a boss or teammate needs to know of an agent, without its whole record.
QJsonObject memberJson(const Agent &m) {
    return QJsonObject{
        {k::Id, m.id},
        {k::Name_, m.name},
        {k::Class, m.agentClass},
        {k::Status, m.status},
        {k::CurrentTask, m.currentTask},
        {k::TaskLabel, m.taskLabel},
        {k::Provider, m.provider},
        {k::Model, m.model},
        {k::Cwd, m.cwd}, // a directory of the machine `host` names
        {wire::host::key::Host, m.host.isEmpty() ? QString(wire::host::Local) : m.host}};
}

QJsonArray membersOf(const AgentRegistry &agents, const QStringList &ids, const QString &skip) {
    QJsonArray out;
    for (const QString &id : ids) {
        if (id == skip)
            continue;
        if (const Agent *m = agents.find(id))
            out.append(memberJson(*m));
    }
    return out;
}

// Resolves a result into the tool's outcome: the value, or the action's error.
template <typename T, typename F> Outcome outcomeOf(const Result<T> &r, F &&toJson) {
    return r ? Outcome::ok(toJson(*r)) : Outcome::failed(r.error());
}

QList<Tool> selfTools(const ToolKit &kit) {
    using namespace schema;
    QList<Tool> tools;
    tools.append(Tool{
        t::ReportTask,
        QStringLiteral("Report task"),
        QStringLiteral("Report the end of the task your boss delegated to you: a summary of what "
                       "you did and whether it completed or failed. The report goes to your boss "
                       "at once. Without a boss it is recorded but not forwarded."),
        QJsonObject{{a::Summary, string(QStringLiteral("What you did and found (1-20,000 "
                                                       "characters)"))},
                    {k::Status, oneOf({QStringLiteral("completed"), QStringLiteral("failed")},
                                      QStringLiteral("How the task ended"))}},
        {a::Summary, k::Status},
        Audience::Agent,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            kit.rest(Method::Post, agentPath(call.self, "/report-task"),
                     QJsonObject{{a::Summary, call.args.value(a::Summary)},
                                 {k::Status, call.args.value(k::Status)}},
                     asSelf(call), done);
        }});
    tools.append(Tool{
        t::Notify,
        QStringLiteral("Notify the user"),
        QStringLiteral("Send the user a notification (shown in the monitor and on the page, and "
                       "sent to their notification channels)."),
        QJsonObject{{k::Title, string(QStringLiteral("A short title"))},
                    {k::Message, string(QStringLiteral("The notification's text"))}},
        {k::Title, k::Message},
        Audience::Agent,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            kit.rest(Method::Post, QStringLiteral("/api/notify"),
                     QJsonObject{{k::AgentId, call.self},
                                 {k::Title, call.args.value(k::Title)},
                                 {k::Message, call.args.value(k::Message)}},
                     asSelf(call), done);
        }});
    tools.append(Tool{
        t::SetStatus,
        QStringLiteral("Set status"),
        QStringLiteral("Set what the user sees about your work: a task label and a tracking "
                       "status with detail. null clears a field; fields left out stay."),
        QJsonObject{{k::TaskLabel, nullableString(QStringLiteral("A short label of your task"))},
                    {k::TrackingStatus,
                     nullableString(QStringLiteral("thinking, working, waiting-subordinates, "
                                                   "need-review, blocked or can-clear-context"))},
                    {k::TrackingStatusDetail,
                     nullableString(QStringLiteral("One line of detail on the status"))}},
        {},
        Audience::Agent,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            if (call.args.isEmpty())
                return done(Outcome::failed(Error::badRequest(
                    wire::code::MissingField,
                    QStringLiteral("give taskLabel, trackingStatus or trackingStatusDetail"))));
            // The status line back, not the whole agent: what the model asked to change.
            kit.rest(Method::Patch, agentPath(call.self), call.args, asSelf(call), done,
                     [](const QJsonValue &body) -> QJsonValue {
                         const QJsonObject agent = body.toObject();
                         return QJsonObject{
                             {k::Success, true},
                             {k::TaskLabel, agent.value(k::TaskLabel)},
                             {k::TrackingStatus, agent.value(k::TrackingStatus)},
                             {k::TrackingStatusDetail, agent.value(k::TrackingStatusDetail)}};
                     });
        }});
    tools.append(Tool{
        t::Whoami,
        QStringLiteral("Who am I"),
        QStringLiteral("Your own agent record, your boss and your team: a boss's members, or the "
                       "other members of your boss's team."),
        {},
        {},
        Audience::Agent,
        true,
        false,
        [kit](const Call &call, const Done &done) {
            kit.rest(Method::Get, agentPath(call.self), {}, asSelf(call), done,
                     [kit, id = call.self](const QJsonValue &body) -> QJsonValue {
                         const AgentRegistry &agents = kit.agents();
                         const Agent *me = agents.find(id);
                         const Agent *boss = me ? agents.find(me->bossId) : nullptr;
                         QJsonArray team;
                         if (me && me->isBoss)
                             team = membersOf(agents, me->subordinateIds, id);
                         else if (boss)
                             team = membersOf(agents, boss->subordinateIds, id);
                         return QJsonObject{{wire::boss::key::Agent, body},
                                            {QStringLiteral("boss"),
                                             boss ? QJsonValue(memberJson(*boss)) : QJsonValue()},
                                            {QStringLiteral("team"), team}};
                     });
        }});
    return tools;
}

// A building's environment may hold credentials the user gave it: agents see the names only.
QJsonValue withoutEnvValues(const QJsonValue &building) {
    QJsonObject b = building.toObject();
    if (b.contains(QStringLiteral("env")))
        b.insert(QStringLiteral("env"),
                 QJsonArray::fromStringList(b.value(QStringLiteral("env")).toObject().keys()));
    return b;
}

QList<Tool> buildingTools(const ToolKit &kit) {
    using namespace schema;
    QList<Tool> tools;
    tools.append(
        Tool{t::ListBuildings,
             QStringLiteral("List buildings"),
             QStringLiteral("The project's services the user runs through Flotilla (dev servers, "
                            "databases, watchers): name, command, state, URL. Read-only."),
             {},
             {},
             Audience::Any,
             true,
             false,
             [kit](const Call &call, const Done &done) {
                 const bool agent = !call.caller.isUser();
                 kit.rest(Method::Get, QStringLiteral("/api/buildings"), {}, {}, done,
                          [agent](const QJsonValue &body) -> QJsonValue {
                              QJsonArray out;
                              for (const QJsonValue &b : body.toArray())
                                  out.append(agent ? withoutEnvValues(b) : b);
                              return QJsonObject{{QStringLiteral("buildings"), out}};
                          });
             }});
    tools.append(Tool{
        t::BuildingLogs,
        QStringLiteral("Building logs"),
        QStringLiteral("The last lines a building's process wrote (stdout and stderr), oldest "
                       "first. Name the building by buildingId or name. Read-only."),
        QJsonObject{{a::BuildingId, string(QStringLiteral("The building's id"))},
                    {k::Name_, string(QStringLiteral("The building's name"))},
                    {a::Tail, integer(QStringLiteral("How many lines (default 200)"), 1, 10000)}},
        {},
        Audience::Any,
        true,
        false,
        [kit](const Call &call, const Done &done) {
            const QString id = call.args.value(a::BuildingId).toString();
            const QString name = call.args.value(k::Name_).toString();
            const int tail = call.args.value(a::Tail).toInt(200);
            const auto logsOf = [kit, tail, done](const QString &buildingId) {
                if (!isPathSafeId(buildingId))
                    return done(Outcome::failed(
                        Error::notFound(wire::code::NotFound, QStringLiteral("no such building"))));
                kit.rest(Method::Get, QStringLiteral("/api/buildings/%1/logs").arg(buildingId), {},
                         {}, done, {}, QUrlQuery{{QStringLiteral("tail"), QString::number(tail)}});
            };
            if (!id.isEmpty())
                return logsOf(id);
            if (name.isEmpty())
                return done(Outcome::rpcError(wire::mcp::rpc::InvalidParams,
                                              QStringLiteral("building_logs: give buildingId or "
                                                             "name")));
            // By name: the list first (the same route list_buildings reads).
            kit.rest(Method::Get, QStringLiteral("/api/buildings"), {}, {},
                     [name, logsOf, done](const Outcome &listed) {
                         const QJsonArray all =
                             listed.result.value(QStringLiteral("structuredContent"))
                                 .toObject()
                                 .value(QStringLiteral("items"))
                                 .toArray();
                         for (const QJsonValue &b : all) {
                             if (b.toObject().value(k::Name_).toString() == name)
                                 return logsOf(b.toObject().value(k::Id).toString());
                         }
                         if (listed.result.value(QStringLiteral("isError")).toBool())
                             return done(listed);
                         done(Outcome::failed(Error::notFound(
                             wire::code::NotFound,
                             QStringLiteral("no building named '%1'").arg(name.left(80)))));
                     });
        }});
    return tools;
}

QList<Tool> bossTools(const ToolKit &kit) {
    using namespace schema;
    QList<Tool> tools;
    tools.append(Tool{
        t::ListTeam,
        QStringLiteral("List my team"),
        QStringLiteral("The members of your team: id, name, class, status, current task."),
        {},
        {},
        Audience::Boss,
        true,
        false,
        [kit](const Call &call, const Done &done) {
            const Agent *boss = kit.agents().find(call.self);
            if (!boss || !boss->isBoss)
                return done(Outcome::failed(Error::notFound(
                    wire::code::NotFound, QStringLiteral("no boss agent '%1'").arg(call.self))));
            done(Outcome::ok(QJsonObject{
                {k::BossId, boss->id},
                {QStringLiteral("team"), membersOf(kit.agents(), boss->subordinateIds, {})}}));
        }});
    tools.append(Tool{
        t::SpawnAgent,
        QStringLiteral("Spawn a team member"),
        QStringLiteral("Create a new agent that joins your team. cwd defaults to yours when it "
                       "runs on your host; a boss cannot spawn another boss."),
        QJsonObject{
            {k::Name_, string(QStringLiteral("A unique name"))},
            {k::Class, string(QStringLiteral("Its class (a defined class gives defaults)"))},
            {k::Cwd, string(QStringLiteral("Its working directory (absolute)"))},
            {wire::host::key::Host,
             string(QStringLiteral("The machine it runs on: \"local\" or a host's name "
                                   "(GET /api/hosts); on another host than yours, give cwd"))},
            {k::Provider, string(QStringLiteral("claude or codex"))},
            {k::Model, string(QStringLiteral("The model"))},
            {a::Skills, stringArray(QStringLiteral("Skill slugs to give it"))},
            {a::CustomInstructions, string(QStringLiteral("Standing instructions (markdown)"))},
            {a::Worktree, typed("object", QStringLiteral("{branch?, base?}: its own git "
                                                         "worktree"))},
            {wire::sandbox::key::Sandbox,
             typed("object", QStringLiteral("{mode: off|workspace, writable?, hidden?}: its "
                                            "sandbox (a sandboxed boss's members get its own)"))}},
        {k::Name_},
        Audience::Boss,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            done(outcomeOf(kit.boss().spawnMember(call.self, call.args), [](const Agent &agent) {
                return QJsonObject{{wire::boss::key::Agent, agent.toJson()}};
            }));
        }});
    tools.append(Tool{
        t::Delegate,
        QStringLiteral("Delegate a task"),
        QStringLiteral("Give a member of your team a task. It starts at once (or queues behind "
                       "its current work); its report or final answer comes back to you."),
        QJsonObject{{k::AgentId, string(QStringLiteral("The member's id"))},
                    {a::AgentName, string(QStringLiteral("Or the member's name"))},
                    {a::Task, string(QStringLiteral("The task, self-contained"))},
                    {a::Reasoning, string(QStringLiteral("Why this member"))}},
        {a::Task},
        Audience::Boss,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            done(outcomeOf(kit.boss().delegateTask(call.self, call.args),
                           [](const boss::Delegation &d) {
                               return QJsonObject{{QStringLiteral("delegation"), d.toJson()}};
                           }));
        }});
    tools.append(Tool{
        t::WorkPlan,
        QStringLiteral("Propose a work plan"),
        QStringLiteral("Propose a plan of tasks for the user to approve; each task may name the "
                       "member that does it. With planId, replaces that proposed plan."),
        QJsonObject{{k::Title, string(QStringLiteral("The plan's title"))},
                    {a::Description, string(QStringLiteral("What the plan achieves"))},
                    {a::Tasks, typed("array", QStringLiteral("1-50 tasks: {description, "
                                                             "agentId? | agentName?}"))},
                    {a::PlanId, string(QStringLiteral("A proposed plan of yours to replace"))}},
        {k::Title, a::Tasks},
        Audience::Boss,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            QJsonObject draft = call.args;
            const QString replaces = draft.take(a::PlanId).toString();
            done(outcomeOf(kit.boss().proposePlan(call.self, draft, replaces),
                           [](const boss::WorkPlan &p) {
                               return QJsonObject{{QStringLiteral("workPlan"), p.toJson()}};
                           }));
        }});
    tools.append(Tool{
        t::AgentHistory,
        QStringLiteral("Read an agent's history"),
        QStringLiteral("The conversation of an agent (a boss: a member of its team), newest "
                       "page by default."),
        QJsonObject{{k::AgentId, string(QStringLiteral("The agent's id"))},
                    {a::Limit, integer(QStringLiteral("Messages per page (default 20)"), 1, 200)},
                    {a::Offset, integer(QStringLiteral("Messages to skip"), 0, 1000000)}},
        {k::AgentId},
        Audience::Team,
        true,
        false,
        [kit](const Call &call, const Done &done) {
            QUrlQuery query{
                {QStringLiteral("limit"), QString::number(call.args.value(a::Limit).toInt(20))},
                {QStringLiteral("includeSubagents"), QStringLiteral("false")}};
            if (call.args.contains(a::Offset))
                query.addQueryItem(QStringLiteral("offset"),
                                   QString::number(call.args.value(a::Offset).toInt()));
            kit.rest(Method::Get, agentPath(call.self, "/history"), {}, {}, done, {}, query);
        }});
    tools.append(Tool{
        t::StopAgent,
        QStringLiteral("Stop an agent"),
        QStringLiteral("Stop an agent's current turn and process (a boss: a member of its "
                       "team). Its session is kept; the next message resumes it."),
        QJsonObject{{k::AgentId, string(QStringLiteral("The agent's id"))}},
        {k::AgentId},
        Audience::Team,
        false,
        false,
        [kit](const Call &call, const Done &done) {
            kit.rest(Method::Post, QStringLiteral("/api/agents/bulk/stop"),
                     QJsonObject{{k::AgentIds, QJsonArray{call.self}}}, {},
                     [done, id = call.self](const Outcome &o) {
                         const QJsonObject r =
                             o.result.value(QStringLiteral("structuredContent")).toObject();
                         const QJsonArray failed = r.value(QStringLiteral("failed")).toArray();
                         if (o.result.value(QStringLiteral("isError")).toBool() || failed.isEmpty())
                             return done(o.result.value(QStringLiteral("isError")).toBool()
                                             ? o
                                             : Outcome::ok(QJsonObject{{k::AgentId, id},
                                                                       {k::Success, true}}));
                         const QJsonObject f = failed.first().toObject();
                         done(Outcome::failed(
                             Error::notFound(wire::code::NotFound, f.value(k::Error).toString())));
                     });
        }});
    return tools;
}

} // namespace

QList<Tool> agentTools(const ToolKit &kit) {
    return selfTools(kit) + buildingTools(kit) + bossTools(kit);
}

} // namespace flotilla::mcp
