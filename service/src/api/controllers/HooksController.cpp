#include "controllers/HooksController.h"

#include "controllers/Replies.h"
#include "hooks/HookRunner.h"
#include "hooks/HookStore.h"
#include "http/HttpServer.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace sm = wire::shaping::msg;

namespace {

const QString kBase = QStringLiteral("/api/hooks");

// The dispatcher already refuses an agent's token on these routes (Access::Token); checked
// again where a hook is made or changed, so that widening a route's access never lets an agent
// define commands that run as the user.
Status serviceTokenOnly(const ApiRequest &r) {
    if (r.agentScope.isEmpty())
        return std::nullopt;
    return Error::forbidden(wire::code::Forbidden,
                            QStringLiteral("an agent's token may not create or change hooks"));
}

} // namespace

HooksController::HooksController(HookStore &hooks, HookRunner &runner, EventHub &hub)
    : m_hooks(hooks) {
    EventHub *h = &hub;
    QObject::connect(&hooks, &HookStore::hookStored, h, [h](const QJsonObject &hook, bool created) {
        h->broadcast(created ? sm::HookCreated : sm::HookUpdated, hook, EventHub::Delivery::Always);
    });
    QObject::connect(&hooks, &HookStore::hookRemoved, h,
                     [h](const QString &id, const QString &name) {
                         h->broadcast(sm::HookDeleted, QJsonObject{{k::Id, id}, {k::Name_, name}},
                                      EventHub::Delivery::Always);
                     });
    // Few, and a client must learn that a hook failed: queued even for a lagging client.
    QObject::connect(&runner, &HookRunner::runFinished, h, [h](const QJsonObject &run) {
        h->broadcast(sm::HookRun, run, EventHub::Delivery::Always);
    });
}

void HooksController::registerRoutes(HttpServer &http) {
    const QString one = kBase + QStringLiteral("/:id");
    http.route(Method::Get, kBase, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kBase, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, one, [this](const ApiRequest &r) { return update(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
    http.route(Method::Get, one + QStringLiteral("/runs"),
               [this](const ApiRequest &r) { return runs(r); });
}

// GET /api/hooks -> 200 [hook] (with lastRun), in creation order
Reply HooksController::list(const ApiRequest &) const {
    return Reply::json(m_hooks.list());
}

// POST /api/hooks {name, event, command, filter?, cwd?, timeoutSeconds?, enabled?} -> 201 hook
// (Location: /api/hooks/<id>) | 400 | 403 (an agent's token) | 422
Reply HooksController::create(const ApiRequest &r) {
    API_CHECK(serviceTokenOnly(r));
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_hooks.create(body));
    return createdReply(created, kBase, created.value(k::Id).toString());
}

// GET /api/hooks/:id -> 200 hook | 404
Reply HooksController::get(const ApiRequest &r) const {
    API_TRY(hook, m_hooks.get(r.param(QStringLiteral("id"))));
    return Reply::json(hook);
}

// PATCH /api/hooks/:id {name?, event?, command?, filter?, cwd?, timeoutSeconds?, enabled?} ->
// 200 hook | 400 | 403 (an agent's token) | 404 | 422
Reply HooksController::update(const ApiRequest &r) {
    API_CHECK(serviceTokenOnly(r));
    API_TRY(body, r.jsonObject());
    API_TRY(updated, m_hooks.update(r.param(QStringLiteral("id")), body));
    return Reply::json(updated);
}

// DELETE /api/hooks/:id -> 204 (its runs go too; a run under way finishes unrecorded) | 403 (an
// agent's token) | 404
Reply HooksController::remove(const ApiRequest &r) {
    API_CHECK(serviceTokenOnly(r));
    API_CHECK(m_hooks.remove(r.param(QStringLiteral("id"))));
    return Reply::noContent();
}

// GET /api/hooks/:id/runs -> 200 [run] newest first (the newest 200 are kept) | 404
Reply HooksController::runs(const ApiRequest &r) const {
    API_TRY(list, m_hooks.runs(r.param(QStringLiteral("id"))));
    return Reply::json(list);
}

} // namespace flotilla
