#include "controllers/SkillsController.h"

#include "controllers/Replies.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "shaping/ClassCatalog.h"
#include "shaping/SkillCatalog.h"
#include "ws/EventHub.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;

namespace {
const QString kBase = QStringLiteral("/api/skills");
} // namespace

SkillsController::SkillsController(SkillCatalog &skills, const ClassCatalog &classes,
                                   const AgentRegistry &agents, EventHub &hub)
    : m_skills(skills)
    , m_classes(classes)
    , m_agents(agents) {
    QObject::connect(
        &m_skills, &SkillCatalog::skillStored, &hub, [&hub](const Skill &skill, bool created) {
            hub.broadcast(created ? sm::SkillCreated : sm::SkillUpdated, skill.toJson());
        });
    QObject::connect(&m_skills, &SkillCatalog::skillRemoved, &hub, [&hub](const Skill &skill) {
        hub.broadcast(sm::SkillDeleted,
                      QJsonObject{{sk::Slug, skill.slug}, {k::Name_, skill.name}});
    });
}

void SkillsController::registerRoutes(HttpServer &http) {
    const QString one = kBase + QStringLiteral("/:slug");
    http.route(Method::Get, kBase, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kBase, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, one, [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, one, [this](const ApiRequest &r) { return update(r); });
    http.route(Method::Delete, one, [this](const ApiRequest &r) { return remove(r); });
}

// GET /api/skills -> 200 [skill], creation order
Reply SkillsController::list(const ApiRequest &) const {
    QJsonArray out;
    const QList<Skill> all = m_skills.skills();
    for (const Skill &skill : all)
        out.append(skill.toJson());
    return Reply::json(out);
}

// GET /api/skills/:slug -> 200 skill | 404
Reply SkillsController::get(const ApiRequest &r) const {
    const auto skill = m_skills.find(r.param(QStringLiteral("slug")));
    if (!skill)
        return Error::notFound(
            wire::code::NotFound,
            QStringLiteral("no skill '%1'").arg(r.param(QStringLiteral("slug"))));
    return Reply::json(skill->toJson());
}

// POST /api/skills {slug, description, name?, content?, allowedTools?, enabled?} -> 201 skill
// (Location) | 400 | 409 | 422
Reply SkillsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_skills.create(body));
    return createdReply(created.toJson(), kBase, created.slug);
}

// PATCH /api/skills/:slug {name?, description?, content?, allowedTools?, enabled?} -> 200 skill
// | 400 | 404 | 422
Reply SkillsController::update(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(updated, m_skills.update(r.param(QStringLiteral("slug")), body));
    return Reply::json(updated.toJson());
}

// DELETE /api/skills/:slug -> 204 | 404 | 409 skill_in_use {agents, classes}: a skill an agent
// or a class is given stays until they no longer name it (disable it to take it away at once).
Reply SkillsController::remove(const ApiRequest &r) {
    const QString slug = r.param(QStringLiteral("slug"));
    QStringList agents, classes;
    const QList<Agent> all = m_agents.agents();
    for (const Agent &a : all) {
        if (a.skills.contains(slug))
            agents.append(a.name);
    }
    const QList<AgentClass> allClasses = m_classes.classes();
    for (const AgentClass &cls : allClasses) {
        if (cls.skills.contains(slug))
            classes.append(cls.slug);
    }
    if (m_skills.contains(slug) && (!agents.isEmpty() || !classes.isEmpty()))
        return inUseReply(
            Error::conflict(wire::shaping::code::SkillInUse,
                            QStringLiteral("skill '%1' is given to %2 agent(s) and %3 class(es); "
                                           "take it from them first")
                                .arg(slug)
                                .arg(agents.size())
                                .arg(classes.size())),
            {{wire::org::key::Agents, agents}, {QStringLiteral("classes"), classes}});
    API_CHECK(m_skills.remove(slug));
    return Reply::noContent();
}

} // namespace flotilla
