#include "controllers/PromptsController.h"

#include "controllers/Replies.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/ShapingNames.h"
#include "shaping/PromptStore.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sm = wire::shaping::msg;
namespace sp = wire::shaping::param;

namespace {
const QString kId = QStringLiteral("id");

Error unknownPrompt(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no saved prompt with id '%1'").arg(id));
}
} // namespace

PromptsController::PromptsController(PromptStore &prompts, const AgentRegistry &agents,
                                     EventHub &hub)
    : m_prompts(prompts)
    , m_agents(agents) {
    QObject::connect(&prompts, &PromptStore::promptCreated, &hub,
                     [&hub](const QJsonObject &p) { hub.broadcast(sm::PromptCreated, p); });
    QObject::connect(&prompts, &PromptStore::promptUpdated, &hub,
                     [&hub](const QJsonObject &p) { hub.broadcast(sm::PromptUpdated, p); });
    QObject::connect(&prompts, &PromptStore::promptDeleted, &hub, [&hub](const QJsonObject &p) {
        hub.broadcast(sm::PromptDeleted,
                      QJsonObject{{k::Id, p.value(k::Id)}, {k::Name_, p.value(k::Name_)}});
    });
}

void PromptsController::registerRoutes(HttpServer &http) {
    const QString all = QStringLiteral("/api/prompts");
    const QString one = QStringLiteral("/api/prompts/:id");
    http.route(Method::Get, all, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, all, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, one, [this](const ApiRequest &r) { return patch(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
}

// GET /api/prompts[?agentId=X] -> 200 [prompt], creation order; with agentId the global ones,
// those of X's class and X's own | 404 (no agent X)
Reply PromptsController::list(const ApiRequest &r) const {
    QList<QJsonObject> prompts;
    if (r.hasQuery(sp::AgentId)) {
        const QString id = r.queryValue(sp::AgentId);
        const Agent *agent = m_agents.find(id);
        if (!agent)
            return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
        prompts = m_prompts.promptsFor(*agent);
    } else {
        prompts = m_prompts.prompts();
    }
    QJsonArray out;
    for (const QJsonObject &p : std::as_const(prompts))
        out.append(p);
    return Reply::json(out);
}

// GET /api/prompts/:id -> 200 prompt | 404
Reply PromptsController::get(const ApiRequest &r) const {
    const QJsonObject *p = m_prompts.find(r.param(kId));
    if (!p)
        return unknownPrompt(r.param(kId));
    return Reply::json(*p);
}

// POST /api/prompts {name, text, scope?: {class?} | {agentId?}} -> 201 prompt (Location) | 400 |
// 404 (scope.agentId names no agent) | 409 (name taken in that scope) | 422; prompt_created
Reply PromptsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_prompts.create(body));
    return createdReply(created, QStringLiteral("/api/prompts"), created.value(k::Id).toString());
}

// PATCH /api/prompts/:id {name?, text?, scope?} -> 200 prompt | 400 | 404 | 409 | 422;
// prompt_updated when something changed
Reply PromptsController::patch(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(updated, m_prompts.patch(r.param(kId), body));
    return Reply::json(updated);
}

// DELETE /api/prompts/:id -> 204 | 404; prompt_deleted {id, name}
Reply PromptsController::remove(const ApiRequest &r) {
    API_CHECK(m_prompts.remove(r.param(kId)));
    return Reply::noContent();
}

} // namespace flotilla
