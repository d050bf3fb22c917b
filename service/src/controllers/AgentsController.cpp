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

AgentsController::AgentsController(HttpServer &http, AgentRegistry &agents, QObject *parent)
    : QObject(parent)
    , m_agents(agents) {
    // GET /api/agents -> 200 [agent]
    http.route(Method::Get, QStringLiteral("/api/agents"),
               [this](const ApiRequest &) { return Reply::rawJson(m_agents.listJson()); });

    // GET /api/agents/simple -> 200 [{id, name}]
    http.route(Method::Get, QStringLiteral("/api/agents/simple"),
               [this](const ApiRequest &) { return Reply::rawJson(m_agents.simpleJson()); });

    // GET /api/agents/status -> 200 [status item]; cached bytes, rebuilt only after a change
    http.route(Method::Get, QStringLiteral("/api/agents/status"),
               [this](const ApiRequest &) { return Reply::rawJson(m_agents.statusJson()); });

    // GET /api/agents/:id -> 200 agent | 404 (an agent's token: its own only, else 403)
    http.route(
        Method::Get, QStringLiteral("/api/agents/:id"),
        [this](const ApiRequest &r) -> Reply {
            const Agent *a = m_agents.find(r.param(QStringLiteral("id")));
            if (!a)
                return unknownAgent(r.param(QStringLiteral("id")));
            return Reply::json(a->toJson());
        },
        Access::Agent);

    // POST /api/agents {name, cwd, class?, provider?, model?, permissionMode?,
    // idleTimeoutSeconds?, budget?, worktree?} -> 201 agent | 400 | 409 | 422 | 500/503 (git)
    http.route(Method::Post, QStringLiteral("/api/agents"), [this](const ApiRequest &r) -> Reply {
        const auto body = r.jsonObject();
        if (!body)
            return body.error();
        const auto draft = parseAgentDraft(*body);
        if (!draft)
            return draft.error();
        const auto created = m_agents.create(*draft);
        if (!created)
            return created.error();
        Reply reply = Reply::json(created->toJson(), 201);
        reply.headers.append({QByteArrayLiteral("Location"),
                              QByteArrayLiteral("/api/agents/") + created->id.toUtf8()});
        return reply;
    });

    // PATCH /api/agents/:id {taskLabel?, trackingStatus?, trackingStatusDetail?,
    // idleTimeoutSeconds?, budget?} -> 200 agent | 400 | 403 (an agent's token: limits) | 404 | 422
    http.route(
        Method::Patch, QStringLiteral("/api/agents/:id"),
        [this](const ApiRequest &r) -> Reply {
            const QString id = r.param(QStringLiteral("id"));
            if (!m_agents.find(id))
                return unknownAgent(id);
            const auto body = r.jsonObject();
            if (!body)
                return body.error();
            const auto patch = parseAgentPatch(*body);
            if (!patch)
                return patch.error();
            // An agent may label itself, never lift its own limits.
            if (!r.authenticated && (patch->budget || patch->idleTimeoutSeconds))
                return Error::forbidden(wire::code::Forbidden,
                                        QStringLiteral("an agent's token cannot change 'budget' "
                                                       "or 'idleTimeoutSeconds'"));
            const auto updated = m_agents.patch(id, *patch);
            if (!updated)
                return updated.error();
            return Reply::json(updated->toJson());
        },
        Access::Agent); // the PATCH fields are an agent's own labels and tracking status

    // DELETE /api/agents/:id?deleteBranch=false&discard=false -> 204 | 200 {id, worktree: what
    // became of it} for an agent with a worktree | 400 | 404
    http.route(Method::Delete, QStringLiteral("/api/agents/:id"),
               [this](const ApiRequest &r) -> Reply {
                   const auto how = WorktreeController::removalOf(r);
                   if (!how)
                       return how.error();
                   const QString id = r.param(QStringLiteral("id"));
                   QJsonObject worktree;
                   if (Status e = m_agents.remove(id, *how, &worktree))
                       return *e;
                   if (worktree.isEmpty())
                       return Reply::noContent();
                   return Reply::json(QJsonObject{{wire::key::Id, id},
                                                  {wire::worktree::key::Worktree, worktree}});
               });
}

} // namespace flotilla
