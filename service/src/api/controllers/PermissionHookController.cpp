#include "controllers/PermissionHookController.h"

#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "permissions/PermissionBroker.h"
#include "protocol/WireNames.h"

namespace flotilla {

PermissionHookController::PermissionHookController(const AgentRegistry &agents,
                                                   PermissionBroker &permissions)
    : m_agents(agents)
    , m_permissions(permissions) {
}

void PermissionHookController::registerRoutes(HttpServer &http) {
    // The agent's own hook, with the agent's own token.
    http.routeAsync(
        Method::Post, QStringLiteral("/api/agents/:id/permission-check"),
        [this](const ApiRequest &r, const ReplyCallback &done) { check(r, done); }, Access::Agent);
}

// POST /api/agents/:id/permission-check (hook stdin) -> 200 hook stdout JSON (at once, or when a
// held PermissionRequest is decided) | 400 | 404 | 422 (unsupported hook_event_name)
void PermissionHookController::check(const ApiRequest &r, const ReplyCallback &done) {
    const QString agentId = r.param(QStringLiteral("id"));
    if (!m_agents.find(agentId))
        return done(Error::notFound(wire::code::NotFound,
                                    QStringLiteral("no agent with id '%1'").arg(agentId)));
    API_TRY_ASYNC(done, hookInput, r.jsonObject());
    m_permissions.answerHook(agentId, hookInput, [done](const Result<QJsonObject> &answer) {
        done(answer ? Reply::json(*answer) : Reply(answer.error()));
    });
}

} // namespace flotilla
