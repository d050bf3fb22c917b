#include "controllers/PermissionRulesController.h"

#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "permissions/PermissionController.h"
#include "permissions/RuleStore.h"
#include "protocol/PermissionNames.h"
#include "ws/EventHub.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace pk = wire::permission::key;
namespace pm = wire::permission::msg;

namespace {
constexpr int kDefaultDecisions = 100;
constexpr int kMaxDecisionsPage = 1000;
} // namespace

PermissionRulesController::PermissionRulesController(HttpServer &http, RuleStore &rules,
                                                     const PermissionController &permissions,
                                                     const AgentRegistry &agents, EventHub &hub,
                                                     QObject *parent)
    : QObject(parent) {
    // GET /api/permission-rules -> 200 {rules: [{id, tool, pattern, scope, decision, createdAt,
    // source}]} in creation order
    http.route(Method::Get, QStringLiteral("/api/permission-rules"), [&rules](const ApiRequest &) {
        return Reply::json(QJsonObject{{pk::Rules, rules.rulesJson()}});
    });

    // POST /api/permission-rules {tool, pattern?, scope?, decision} -> 201 rule | 400 | 409 | 422
    http.route(Method::Post, QStringLiteral("/api/permission-rules"),
               [&rules, &agents](const ApiRequest &r) -> Reply {
                   const auto body = r.jsonObject();
                   if (!body)
                       return body.error();
                   const auto draft = parseRuleDraft(*body);
                   if (!draft)
                       return draft.error();
                   if (!draft->scopeAgentId.isEmpty() && !agents.find(draft->scopeAgentId))
                       return Error::invalid(c::InvalidValue,
                                             QStringLiteral("field 'scope.agentId': no agent "
                                                            "with id '%1'")
                                                 .arg(draft->scopeAgentId.left(60)));
                   const auto added = rules.add(*draft, QStringLiteral("api"));
                   if (!added)
                       return added.error();
                   Reply reply = Reply::json(added->toJson(), 201);
                   reply.headers.append(
                       {QByteArrayLiteral("Location"),
                        QByteArrayLiteral("/api/permission-rules/") + added->id.toUtf8()});
                   return reply;
               });

    // DELETE /api/permission-rules/:id -> 204 | 404
    http.route(Method::Delete, QStringLiteral("/api/permission-rules/:id"),
               [&rules](const ApiRequest &r) -> Reply {
                   if (Status e = rules.remove(r.param(QStringLiteral("id"))))
                       return *e;
                   return Reply::noContent();
               });

    // GET /api/permission-requests -> 200 {requests: [permission_request payloads]}, oldest first
    http.route(Method::Get, QStringLiteral("/api/permission-requests"),
               [&permissions](const ApiRequest &) {
                   return Reply::json(QJsonObject{{pk::Requests, permissions.pendingRequests()}});
               });

    // GET /api/permission-decisions?limit=100&agentId= -> 200 {decisions} newest first
    http.route(Method::Get, QStringLiteral("/api/permission-decisions"),
               [&rules](const ApiRequest &r) -> Reply {
                   const auto limit =
                       r.intQuery(QStringLiteral("limit"), kDefaultDecisions, 1, kMaxDecisionsPage);
                   if (!limit)
                       return limit.error();
                   const auto list =
                       rules.decisions(*limit, r.queryValue(QStringLiteral("agentId")));
                   if (!list)
                       return list.error();
                   QJsonArray out;
                   for (const PermissionDecision &d : *list)
                       out.append(d.toJson());
                   return Reply::json(QJsonObject{{pk::Decisions, out}});
               });

    connect(&rules, &RuleStore::rulesChanged, this, [&hub, &rules] {
        hub.broadcast(pm::RulesUpdate, QJsonObject{{pk::Rules, rules.rulesJson()}});
    });
}

} // namespace flotilla
