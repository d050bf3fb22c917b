#include "controllers/ClassesController.h"

#include "controllers/Replies.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "shaping/ClassCatalog.h"
#include "ws/EventHub.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;

namespace {
const QString kBase = QStringLiteral("/api/classes");

Error unknownClass(const QString &slug) {
    return Error::notFound(wire::code::NotFound,
                           QStringLiteral("no class '%1'").arg(slug.left(60)));
}
} // namespace

ClassesController::ClassesController(ClassCatalog &classes, const AgentRegistry &agents,
                                     EventHub &hub)
    : m_classes(classes)
    , m_agents(agents) {
    QObject::connect(&m_classes, &ClassCatalog::classStored, &hub,
                     [&hub](const AgentClass &cls, bool created) {
                         hub.broadcast(created ? sm::ClassCreated : sm::ClassUpdated, cls.toJson());
                     });
    QObject::connect(&m_classes, &ClassCatalog::classRemoved, &hub, [&hub](const AgentClass &cls) {
        hub.broadcast(sm::ClassDeleted, QJsonObject{{sk::Slug, cls.slug}, {k::Name_, cls.name}});
    });
}

void ClassesController::registerRoutes(HttpServer &http) {
    const QString one = kBase + QStringLiteral("/:slug");
    http.route(Method::Get, kBase, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kBase, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, one, [this](const ApiRequest &r) { return update(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
    http.route(Method::Get, one + QStringLiteral("/icon"),
               [this](const ApiRequest &r) { return icon(r); });
}

// GET /api/classes -> 200 [class]: the built-in ones first, then creation order
Reply ClassesController::list(const ApiRequest &) const {
    QJsonArray out;
    const QList<AgentClass> all = m_classes.classes();
    for (const AgentClass &cls : all)
        out.append(cls.toJson());
    return Reply::json(out);
}

// GET /api/classes/:slug -> 200 class | 404
Reply ClassesController::get(const ApiRequest &r) const {
    const auto cls = m_classes.find(r.param(QStringLiteral("slug")));
    if (!cls)
        return unknownClass(r.param(QStringLiteral("slug")));
    return Reply::json(cls->toJson());
}

// GET /api/classes/:slug/icon -> 200 the image, as its own type | 404 (no class, no icon).
// An SVG can hold script: served with a sandboxing CSP (as a document it runs nothing) and
// nosniff (on every answer), so it is only ever an image.
Reply ClassesController::icon(const ApiRequest &r) const {
    const auto cls = m_classes.find(r.param(QStringLiteral("slug")));
    if (!cls)
        return unknownClass(r.param(QStringLiteral("slug")));
    if (cls->icon.isEmpty())
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("class '%1' has no icon").arg(cls->slug));
    Reply reply;
    reply.body = cls->icon;
    reply.contentType = cls->iconType.toLatin1();
    if (cls->iconType == QLatin1String("image/svg+xml"))
        reply.headers.append({QByteArrayLiteral("Content-Security-Policy"),
                              QByteArrayLiteral("sandbox; default-src 'none'; style-src "
                                                "'unsafe-inline'")});
    return reply;
}

// POST /api/classes {slug, name?, description?, instructions?, defaults?, skills?,
// allowedTools?, disallowedTools?, icon?} -> 201 class (Location) | 400 | 409 | 422
Reply ClassesController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_classes.create(body));
    return createdReply(created.toJson(), kBase, created.slug);
}

// PATCH /api/classes/:slug {any field but slug; icon: null removes it} -> 200 class | 400 | 404
// | 422. A built-in class takes it as an override.
Reply ClassesController::update(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(updated, m_classes.update(r.param(QStringLiteral("slug")), body));
    return Reply::json(updated.toJson());
}

// DELETE /api/classes/:slug -> 204 | 404 | 409 builtin_class | 409 class_in_use {agents}
Reply ClassesController::remove(const ApiRequest &r) {
    const QString slug = r.param(QStringLiteral("slug"));
    if (m_classes.find(slug) && !ClassCatalog::isBuiltin(slug)) {
        QStringList users;
        const QList<Agent> agents = m_agents.agents();
        for (const Agent &a : agents) {
            if (a.agentClass == slug)
                users.append(a.name);
        }
        if (!users.isEmpty())
            return inUseReply(
                Error::conflict(wire::shaping::code::ClassInUse,
                                QStringLiteral("class '%1' is used by %2 agent(s): %3; change or "
                                               "delete them first")
                                    .arg(slug)
                                    .arg(users.size())
                                    .arg(users.join(QStringLiteral(", ")))),
                {{wire::org::key::Agents, users}});
    }
    API_CHECK(m_classes.remove(slug));
    return Reply::noContent();
}

} // namespace flotilla
