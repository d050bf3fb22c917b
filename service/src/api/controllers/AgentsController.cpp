#include "controllers/AgentsController.h"

#include "controllers/WorktreeController.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

namespace flotilla {

namespace {
Error unknownAgent(const QString &id) {
    return Error::notFound(wire::code::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
}
} // namespace

AgentsController::AgentsController(AgentRegistry &agents)
    : m_agents(agents) {
}

void AgentsController::registerRoutes(HttpServer &http) {
    const QString agents = QStringLiteral("/api/agents");
    const QString agent = QStringLiteral("/api/agents/:id");
    http.route(Method::Get, agents, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Get, QStringLiteral("/api/agents/simple"),
               [this](const ApiRequest &r) { return simpleList(r); });
    http.route(Method::Get, QStringLiteral("/api/agents/status"),
               [this](const ApiRequest &r) { return statusList(r); });
    http.route(
        Method::Get, agent, [this](const ApiRequest &r) { return get(r); }, Access::Agent);
    http.route(Method::Post, agents, [this](const ApiRequest &r) { return create(r); });
    // The PATCH fields are an agent's own labels and tracking status.
    http.route(
        Method::Patch, agent, [this](const ApiRequest &r) { return patch(r); }, Access::Agent);
    http.route(Method::Delete, agent, [this](const ApiRequest &r) { return remove(r); });
}

// GET /api/agents -> 200 [agent]
Reply AgentsController::list(const ApiRequest &) const {
    return Reply::rawJson(m_agents.listJson());
}

// GET /api/agents/simple -> 200 [{id, name}]
Reply AgentsController::simpleList(const ApiRequest &) const {
    return Reply::rawJson(m_agents.simpleJson());
}

// GET /api/agents/status -> 200 [status item]; cached bytes, rebuilt only after a change
Reply AgentsController::statusList(const ApiRequest &) const {
    return Reply::rawJson(m_agents.statusJson());
}

// GET /api/agents/:id -> 200 agent | 404 (an agent's token: its own only, else 403)
Reply AgentsController::get(const ApiRequest &r) const {
    const Agent *a = m_agents.find(r.param(QStringLiteral("id")));
    if (!a)
        return unknownAgent(r.param(QStringLiteral("id")));
    return Reply::json(a->toJson());
}

// POST /api/agents {name, cwd, class?, provider?, model?, permissionMode?, idleTimeoutSeconds?,
// budget?, worktree?, customInstructions?, skills?}; the class's defaults fill what is absent ->
// 201 agent (Location: /api/agents/<id>) | 400 | 409 | 422 | 500/503 (git)
Reply AgentsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(draft, m_agents.parseDraft(body));
    API_TRY(created, m_agents.create(draft));
    Reply reply = Reply::json(created.toJson(), 201);
    reply.headers.append(
        {QByteArrayLiteral("Location"), QByteArrayLiteral("/api/agents/") + created.id.toUtf8()});
    return reply;
}

// PATCH /api/agents/:id {taskLabel?, trackingStatus?, trackingStatusDetail?,
// idleTimeoutSeconds?, budget?, customInstructions?, skills?} -> 200 agent | 400 | 403 (an agent's
// token: limits) | 404 | 422
Reply AgentsController::patch(const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    if (!m_agents.find(id))
        return unknownAgent(id);
    API_TRY(body, r.jsonObject());
    API_TRY(changes, parseAgentPatch(body));
    // An agent may label itself, never lift its own limits nor rewrite what it is told.
    if (!r.authenticated && (changes.budget || changes.idleTimeoutSeconds ||
                             changes.customInstructions || changes.skills))
        return Error::forbidden(wire::code::Forbidden,
                                QStringLiteral("an agent's token cannot change 'budget', "
                                               "'idleTimeoutSeconds', 'customInstructions' or "
                                               "'skills'"));
    if (changes.skills)
        API_CHECK(m_agents.checkSkills(*changes.skills));
    API_TRY(updated, m_agents.patch(id, changes));
    return Reply::json(updated.toJson());
}

// DELETE /api/agents/:id?deleteBranch=false&discard=false -> 204 | 200 {id, worktree: what
// became of it} for an agent with a worktree | 400 | 404
Reply AgentsController::remove(const ApiRequest &r) {
    API_TRY(how, WorktreeController::removalOf(r));
    const QString id = r.param(QStringLiteral("id"));
    QJsonObject worktree;
    API_CHECK(m_agents.remove(id, how, &worktree));
    if (worktree.isEmpty())
        return Reply::noContent();
    return Reply::json(QJsonObject{{wire::key::Id, id}, {wire::worktree::key::Worktree, worktree}});
}

} // namespace flotilla
