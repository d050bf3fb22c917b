#include "controllers/OrganizationController.h"

#include "controllers/BulkSupport.h"
#include "controllers/WorktreeController.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "organization/ActivityRecorder.h"
#include "organization/OrgLogging.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WorktreeNames.h"
#include "ws/EventHub.h"

#include <QDateTime>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace om = wire::org::msg;
namespace ok = wire::org::key;
namespace op = wire::org::param;

namespace {

Error unknownAgent(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
}

Error unknownArea(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no area with id '%1'").arg(id));
}

} // namespace

OrganizationController::OrganizationController(AgentRegistry &agents, EventHub &hub,
                                               AreaStore &areas, SystemPromptStore &prompt,
                                               SecretStore &secrets, RuleStore &permissionRules,
                                               const Clock &clock)
    : m_agents(agents)
    , m_hub(hub)
    , m_clock(clock)
    , m_areas(areas)
    , m_activity(clock)
    , m_transfer(agents, m_areas, prompt, secrets, m_activity, permissionRules, clock) {
    // An agent may point at an area that is gone (the service stopped between the two writes of
    // an area deletion, or the area row was unreadable): it is in no area, and says so.
    if (Status e = unassignAgents([this](const QString &id) { return !m_areas.find(id); }))
        qCWarning(lcOrg).noquote() << "dangling areaId not cleared:" << e->message;

    // Events go out before the activity line about them: the hub is connected first.
    QObject::connect(&m_areas, &AreaStore::areaCreated, &hub,
                     [&hub](const Area &a) { hub.broadcast(om::AreaCreated, a.toJson()); });
    QObject::connect(&m_areas, &AreaStore::areaUpdated, &hub, [&hub](const Area &a) {
        hub.broadcast(wire::shaping::msg::AreaUpdated, a.toJson());
    });
    QObject::connect(&m_areas, &AreaStore::areaDeleted, &hub, [&hub](const Area &a) {
        hub.broadcast(om::AreaDeleted, QJsonObject{{k::Id, a.id}, {k::Name_, a.name}});
    });
    QObject::connect(&m_activity, &ActivityLog::recorded, &hub,
                     [&hub](const ActivityEntry &e) { hub.broadcast(om::Activity, e.toJson()); });
    m_recorder = std::make_unique<ActivityRecorder>(agents, m_areas, m_activity);
}

OrganizationController::~OrganizationController() = default;

Status
OrganizationController::unassignAgents(const std::function<bool(const QString &areaId)> &inArea) {
    bool changed = false;
    const QList<Agent> all = m_agents.agents();
    for (const Agent &a : all) {
        if (!a.areaId.isEmpty() && inArea(a.areaId)) {
            m_agents.updateRuntime(a.id, [](Agent &x) { x.areaId.clear(); });
            changed = true;
        }
    }
    return changed ? m_agents.flush() : std::nullopt;
}

void OrganizationController::registerRoutes(HttpServer &http) {
    // A configuration carries skills (up to 256 KiB each), icons and 3D models as base64: more
    // than the general limit allows, less than a full quota of models (documents that large
    // need --max-body-bytes).
    http.allowLargerBody(Method::Post, QStringLiteral("/api/config/import"),
                         ConfigTransfer::kImportBodyBytes);
    const QString areas = QStringLiteral("/api/areas");
    const QString area = QStringLiteral("/api/areas/:id");
    http.route(Method::Get, areas, [this](const ApiRequest &r) { return listAreas(r); });
    http.route(Method::Get, area, [this](const ApiRequest &r) { return getArea(r); });
    http.route(Method::Post, areas, [this](const ApiRequest &r) { return createArea(r); });
    http.route(Method::Patch, area, [this](const ApiRequest &r) { return updateArea(r); });
    http.route(Method::Delete, area, [this](const ApiRequest &r) { return deleteArea(r); });
    http.route(Method::Post, QStringLiteral("/api/agents/bulk/delete"),
               [this](const ApiRequest &r) { return bulkDelete(r); });
    http.route(Method::Post, QStringLiteral("/api/agents/bulk/move-area"),
               [this](const ApiRequest &r) { return bulkMoveArea(r); });
    http.route(Method::Post, QStringLiteral("/api/focus-agent"),
               [this](const ApiRequest &r) { return focusAgent(r); });
    http.route(Method::Get, QStringLiteral("/api/activity"),
               [this](const ApiRequest &r) { return activity(r); });
    http.route(Method::Get, QStringLiteral("/api/config/export"),
               [this](const ApiRequest &r) { return exportConfig(r); });
    http.route(Method::Post, QStringLiteral("/api/config/import"),
               [this](const ApiRequest &r) { return importConfig(r); });
}

// GET /api/areas -> 200 [area], creation order
Reply OrganizationController::listAreas(const ApiRequest &) const {
    QJsonArray out;
    const QList<Area> all = m_areas.areas();
    for (const Area &a : all)
        out.append(a.toJson());
    return Reply::json(out);
}

// GET /api/areas/:id -> 200 area | 404
Reply OrganizationController::getArea(const ApiRequest &r) const {
    const Area *a = m_areas.find(r.param(QStringLiteral("id")));
    if (!a)
        return unknownArea(r.param(QStringLiteral("id")));
    return Reply::json(a->toJson());
}

// POST /api/areas {name, color?} -> 201 area (Location: /api/areas/<id>) | 400 | 409 | 422
Reply OrganizationController::createArea(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(draft, parseAreaDraft(body));
    API_TRY(created, m_areas.create(draft));
    Reply reply = Reply::json(created.toJson(), 201);
    reply.headers.append(
        {QByteArrayLiteral("Location"), QByteArrayLiteral("/api/areas/") + created.id.toUtf8()});
    return reply;
}

// PATCH /api/areas/:id {name?, color?, instructions?} -> 200 area | 400 | 404 | 409 | 422;
// broadcasts area_updated. New instructions reach the area's agents on their next message.
Reply OrganizationController::updateArea(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(patch, parseAreaPatch(body));
    API_TRY(updated, m_areas.update(r.param(QStringLiteral("id")), patch));
    return Reply::json(updated.toJson());
}

// DELETE /api/areas/:id -> 204 | 404. Its agents first leave it (agent_updated areaId null,
// flushed), then the area goes: a crash in between leaves an empty area, never an agent in a
// missing one.
Reply OrganizationController::deleteArea(const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    if (!m_areas.find(id))
        return unknownArea(id);
    API_CHECK(unassignAgents([&id](const QString &areaId) { return areaId == id; }));
    API_CHECK(m_areas.remove(id));
    return Reply::noContent();
}

// POST /api/agents/bulk/delete?deleteBranch=&discard= {agentIds} -> 200 {succeeded, failed,
// worktrees?: [{agentId, ...what became of each worktree}]} | 400. Each deletion stops the
// agent's process, unlinks boss/subordinates and broadcasts agent_deleted; a worktree goes as
// DELETE /api/agents/:id says.
Reply OrganizationController::bulkDelete(const ApiRequest &r) {
    API_TRY(how, WorktreeController::removalOf(r));
    API_TRY(body, r.jsonObject());
    API_TRY(ids, agentIdsOf(body));
    QJsonArray worktrees;
    QJsonObject out = bulkResult(ids, [&](const QString &id) -> Status {
        QJsonObject worktree;
        API_CHECK(m_agents.remove(id, how, &worktree));
        if (!worktree.isEmpty()) {
            worktree.insert(k::AgentId, id);
            worktrees.append(worktree);
        }
        return std::nullopt;
    });
    if (!worktrees.isEmpty())
        out.insert(wire::worktree::key::Worktrees, worktrees);
    return Reply::json(out);
}

// POST /api/agents/bulk/move-area {agentIds, areaId: string | null} -> 200 {succeeded, failed}
// | 400 | 404 (unknown area: nothing moves). Each moved agent broadcasts agent_updated {id, name,
// areaId}; all moves are on disk before the answer.
Reply OrganizationController::bulkMoveArea(const ApiRequest &r) {
    AgentRegistry &agents = m_agents;
    const AreaStore &areas = m_areas;
    return bulkReply(
        r,
        [&agents, &areas](const QJsonObject &body) -> Result<BulkOp> {
            // Required even for "no area": a client that forgot the field must not empty areas.
            if (!body.contains(k::AreaId))
                return Error::badRequest(c::MissingField,
                                         QStringLiteral("field 'areaId' is required (null "
                                                        "removes the agents from their area)"));
            const QJsonValue v = body.value(k::AreaId);
            if (!v.isNull() && !v.isString())
                return Error::badRequest(c::WrongType,
                                         QStringLiteral("field 'areaId' must be a string or null"));
            const QString areaId = v.toString();
            if (!areaId.isEmpty() && !areas.find(areaId))
                return unknownArea(areaId);
            return BulkOp([&agents, areaId](const QString &id) -> Status {
                if (!agents.updateRuntime(id, [&areaId](Agent &a) { a.areaId = areaId; }))
                    return unknownAgent(id);
                return std::nullopt;
            });
        },
        [&agents] { return agents.flush(); });
}

// POST /api/focus-agent {agentId} -> 200 {success, agentId, agentName} | 400 | 404 | 422;
// broadcasts focus_agent {agentId, agentName} (UIs scroll to / select that agent).
Reply OrganizationController::focusAgent(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (it.key() != k::AgentId)
            return Error::invalid(
                c::UnknownField,
                QStringLiteral("unknown field '%1'; only 'agentId' is accepted").arg(it.key()));
    }
    if (!body.contains(k::AgentId))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'agentId' is required"));
    if (!body.value(k::AgentId).isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'agentId' must be a string"));
    const QString id = body.value(k::AgentId).toString();
    const Agent *agent = m_agents.find(id);
    if (!agent)
        return unknownAgent(id);
    const QJsonObject payload{{k::AgentId, id}, {k::AgentName, agent->name}};
    m_hub.broadcast(om::FocusAgent, payload);
    QJsonObject out = payload;
    out.insert(k::Success, true);
    return Reply::json(out);
}

// GET /api/activity?limit=50&agentId= -> 200 {activities: [entry]}, newest first | 400 | 422
Reply OrganizationController::activity(const ApiRequest &r) const {
    API_TRY(limit, r.intQuery(op::Limit, ActivityLog::kDefaultLimit, 1, ActivityLog::kCapacity));
    QJsonArray out;
    const QList<ActivityEntry> entries = m_activity.latest(limit, r.queryValue(op::AgentId));
    for (const ActivityEntry &e : entries)
        out.append(e.toJson());
    return Reply::json(QJsonObject{{ok::Activities, out}});
}

// GET /api/config/export?categories=agents,areas&includeSecrets=false -> 200 {version,
// exportedAt, categories} (Content-Disposition: attachment, flotilla-config-<UTC day>.json) |
// 400 | 422
Reply OrganizationController::exportConfig(const ApiRequest &r) const {
    API_TRY(secrets, r.boolQuery(op::IncludeSecrets, false));
    API_TRY(categories,
            m_transfer.parseCategories(r.queryValue(op::Categories), r.hasQuery(op::Categories)));
    Reply reply = Reply::json(m_transfer.exportDocument(categories, secrets));
    const QByteArray day = QDateTime::fromMSecsSinceEpoch(m_clock.nowMs(), Qt::UTC)
                               .toString(QStringLiteral("yyyy-MM-dd"))
                               .toUtf8();
    reply.headers.append({QByteArrayLiteral("Content-Disposition"),
                          QByteArrayLiteral("attachment; filename=\"flotilla-config-") + day +
                              QByteArrayLiteral(".json\"")});
    return reply;
}

// POST /api/config/import?dryRun=false <document> -> 200 summary | 400 | 409 {conflicts} | 413 |
// 422 | 500 (a write failed; everything undone)
Reply OrganizationController::importConfig(const ApiRequest &r) {
    API_TRY(dryRun, r.boolQuery(op::DryRun, false));
    API_TRY(body, r.jsonObject());
    API_TRY(plan, m_transfer.validate(body));
    if (!plan.conflicts.isEmpty()) {
        return Reply::json(QJsonObject{{k::Error, QStringLiteral("%1 name(s) in the document "
                                                                 "already exist; nothing was "
                                                                 "imported")
                                                      .arg(plan.conflicts.size())},
                                       {k::Code, c::Conflict},
                                       {ok::Conflicts, plan.conflicts}},
                           409);
    }
    if (dryRun)
        return Reply::json(ConfigTransfer::summary(plan, true));
    API_TRY(summary, m_transfer.apply(plan));
    return Reply::json(summary);
}

} // namespace flotilla
