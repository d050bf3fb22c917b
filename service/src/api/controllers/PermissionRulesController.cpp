#include "controllers/PermissionRulesController.h"

#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "permissions/PermissionBroker.h"
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

PermissionRulesController::PermissionRulesController(RuleStore &rules,
                                                     const PermissionBroker &permissions,
                                                     const AgentRegistry &agents, EventHub &hub)
    : m_rules(rules)
    , m_permissions(permissions)
    , m_agents(agents) {
    // Every change of the rules, whoever made it, goes out to the clients.
    QObject::connect(&rules, &RuleStore::rulesChanged, &hub, [&hub, &rules] {
        hub.broadcast(pm::RulesUpdate, QJsonObject{{pk::Rules, rules.rulesJson()}});
    });
}

void PermissionRulesController::registerRoutes(HttpServer &http) {
    const QString rules = QStringLiteral("/api/permission-rules");
    http.route(Method::Get, rules, [this](const ApiRequest &r) { return listRules(r); });
    http.route(Method::Post, rules, [this](const ApiRequest &r) { return addRule(r); });
    http.route(Method::Delete, QStringLiteral("/api/permission-rules/:id"),
               [this](const ApiRequest &r) { return removeRule(r); });
    http.route(Method::Get, QStringLiteral("/api/permission-requests"),
               [this](const ApiRequest &r) { return pendingRequests(r); });
    http.route(Method::Get, QStringLiteral("/api/permission-decisions"),
               [this](const ApiRequest &r) { return decisions(r); });
}

// GET /api/permission-rules -> 200 {rules: [{id, tool, pattern, scope, decision, createdAt,
// source}]} in creation order
Reply PermissionRulesController::listRules(const ApiRequest &) const {
    return Reply::json(QJsonObject{{pk::Rules, m_rules.rulesJson()}});
}

// POST /api/permission-rules {tool, pattern?, scope?, decision} -> 201 rule (Location:
// /api/permission-rules/<id>) | 400 | 409 | 422
Reply PermissionRulesController::addRule(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(draft, parseRuleDraft(body, m_rules.toolKinds()));
    if (!draft.scopeAgentId.isEmpty() && !m_agents.find(draft.scopeAgentId))
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'scope.agentId': no agent "
                                                              "with id '%1'")
                                                   .arg(draft.scopeAgentId.left(60)));
    API_TRY(added, m_rules.add(draft, QStringLiteral("api")));
    Reply reply = Reply::json(added.toJson(), 201);
    reply.headers.append({QByteArrayLiteral("Location"),
                          QByteArrayLiteral("/api/permission-rules/") + added.id.toUtf8()});
    return reply;
}

// DELETE /api/permission-rules/:id -> 204 | 404
Reply PermissionRulesController::removeRule(const ApiRequest &r) {
    API_CHECK(m_rules.remove(r.param(QStringLiteral("id"))));
    return Reply::noContent();
}

// GET /api/permission-requests -> 200 {requests: [permission_request payloads]}, oldest first
Reply PermissionRulesController::pendingRequests(const ApiRequest &) const {
    return Reply::json(QJsonObject{{pk::Requests, m_permissions.pendingRequests()}});
}

// GET /api/permission-decisions?limit=100&agentId= -> 200 {decisions} newest first | 400 | 422
Reply PermissionRulesController::decisions(const ApiRequest &r) const {
    API_TRY(limit, r.intQuery(QStringLiteral("limit"), kDefaultDecisions, 1, kMaxDecisionsPage));
    API_TRY(list, m_rules.decisions(limit, r.queryValue(QStringLiteral("agentId"))));
    QJsonArray out;
    for (const PermissionDecision &d : list)
        out.append(d.toJson());
    return Reply::json(QJsonObject{{pk::Decisions, out}});
}

} // namespace flotilla
