#include "controllers/BuildingsController.h"

#include "buildings/BuildingStore.h"
#include "buildings/BuildingSupervisor.h"
#include "controllers/Replies.h"
#include "http/HttpServer.h"
#include "protocol/ShapingNames.h"
#include "ws/EventHub.h"

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;
namespace ss = wire::shaping::stream;

namespace {

const QString kBase = QStringLiteral("/api/buildings");

Error unknownBuilding(const QString &id) {
    return Error::notFound(c::NotFound, QStringLiteral("no building with id '%1'").arg(id));
}

// The building as it is now, or 404 (it may have been deleted meanwhile).
Reply describeReply(const BuildingSupervisor &supervisor, const QString &id, int status = 200) {
    const auto building = supervisor.describe(id);
    if (!building)
        return unknownBuilding(id);
    return Reply::json(*building, status);
}

} // namespace

BuildingsController::BuildingsController(BuildingStore &store, BuildingSupervisor &supervisor,
                                         EventHub &hub)
    : m_store(store)
    , m_supervisor(supervisor) {
    wireEvents(hub);
}

void BuildingsController::registerRoutes(HttpServer &http) {
    http.route(Method::Get, kBase, [this](const ApiRequest &r) { return list(r); });
    http.route(Method::Post, kBase, [this](const ApiRequest &r) { return create(r); });
    http.route(Method::Get, kBase + QStringLiteral("/:id"),
               [this](const ApiRequest &r) { return get(r); });
    http.route(Method::Patch, kBase + QStringLiteral("/:id"),
               [this](const ApiRequest &r) { return patch(r); });
    http.routeAsync(Method::Delete, kBase + QStringLiteral("/:id"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { remove(r, done); });
    http.route(Method::Post, kBase + QStringLiteral("/:id/start"),
               [this](const ApiRequest &r) { return start(r); });
    http.routeAsync(Method::Post, kBase + QStringLiteral("/:id/stop"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { stop(r, done); });
    http.routeAsync(Method::Post, kBase + QStringLiteral("/:id/restart"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { restart(r, done); });
    http.route(Method::Get, kBase + QStringLiteral("/:id/logs"),
               [this](const ApiRequest &r) { return logs(r); });
}

// GET /api/buildings -> 200 [building] (creation order)
Reply BuildingsController::list(const ApiRequest &) const {
    return Reply::json(m_supervisor.list());
}

// GET /api/buildings/:id -> 200 building | 404
Reply BuildingsController::get(const ApiRequest &r) const {
    return describeReply(m_supervisor, r.param(QStringLiteral("id")));
}

// POST /api/buildings {name, command, cwd?, env?, autostart?, restart?, url?, areaId?, agentId?}
// -> 201 building (Location: /api/buildings/<id>) | 400 | 404 (agent, area) | 409 | 422
Reply BuildingsController::create(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(created, m_store.create(body));
    return withLocation(describeReply(m_supervisor, created.id, 201), kBase, created.id);
}

// PATCH /api/buildings/:id {any POST field} -> 200 building | 400 | 404 | 409 | 422. A running
// building keeps its process: the change applies at its next start.
Reply BuildingsController::patch(const ApiRequest &r) {
    API_TRY(body, r.jsonObject());
    API_TRY(patched, m_store.patch(r.param(QStringLiteral("id")), body));
    return describeReply(m_supervisor, patched.id);
}

// DELETE /api/buildings/:id -> 204 once its process ended (SIGTERM, SIGKILL after the grace) and
// the building was deleted | 404
void BuildingsController::remove(const ApiRequest &r, const ReplyCallback &done) {
    API_CHECK_ASYNC(done,
                    m_supervisor.remove(r.param(QStringLiteral("id")), [done](const Status &e) {
                        if (e)
                            done(*e);
                        else
                            done(Reply::noContent());
                    }));
}

// POST /api/buildings/:id/start -> 200 building (state starting) | 404 | 409 already_running |
// 422 (its directory, program or a secret is missing: the building is then crashed, its log says
// why)
Reply BuildingsController::start(const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    API_CHECK(m_supervisor.start(id));
    return describeReply(m_supervisor, id);
}

// POST /api/buildings/:id/stop -> 200 building (state stopped) once its process ended; at once
// when nothing runs (a pending automatic restart is cancelled) | 404
void BuildingsController::stop(const ApiRequest &r, const ReplyCallback &done) {
    const QString id = r.param(QStringLiteral("id"));
    API_CHECK_ASYNC(done, m_supervisor.stop(id, [this, id, done](const Status &e) {
        done(e ? Reply(*e) : describeReply(m_supervisor, id));
    }));
}

// POST /api/buildings/:id/restart -> 200 building (state starting) once the old process ended
// and the new one started | 404 | 409 | 422 as start
void BuildingsController::restart(const ApiRequest &r, const ReplyCallback &done) {
    const QString id = r.param(QStringLiteral("id"));
    API_CHECK_ASYNC(done, m_supervisor.restart(id, [this, id, done](const Status &e) {
        done(e ? Reply(*e) : describeReply(m_supervisor, id));
    }));
}

// GET /api/buildings/:id/logs?tail=1000 -> 200 {lines: [{text, stream}], truncated} (oldest
// first; tail 1-10000) | 400 | 404 | 422
Reply BuildingsController::logs(const ApiRequest &r) const {
    API_TRY(tail, r.intQuery(wire::shaping::param::Tail, kTailDefault, 1, kTailMax));
    bool truncated = false;
    API_TRY(lines, m_supervisor.logs(r.param(QStringLiteral("id")), tail, &truncated));
    QJsonArray out;
    for (const BuildingLog::Line &line : lines)
        out.append(QJsonObject{{wire::key::Text, line.text},
                               {sk::Stream, line.isError ? ss::Stderr : ss::Stdout}});
    return Reply::json(QJsonObject{{sk::Lines, out}, {sk::Truncated, truncated}});
}

void BuildingsController::wireEvents(EventHub &hub) {
    BuildingSupervisor *supervisor = &m_supervisor;
    // Created, deleted and state changes are few and a client must see them: queued even for a
    // lagging client. Output may be dropped for a client that does not read (the hub's rule).
    QObject::connect(&m_store, &BuildingStore::buildingCreated, &hub,
                     [&hub, supervisor](const BuildingConfig &b) {
                         hub.broadcast(sm::BuildingCreated, supervisor->describe(b),
                                       EventHub::Delivery::Always);
                     });
    QObject::connect(&m_store, &BuildingStore::buildingChanged, &hub,
                     [&hub, supervisor](const BuildingConfig &b) {
                         hub.broadcast(sm::BuildingUpdated, supervisor->describe(b),
                                       EventHub::Delivery::Always);
                     });
    QObject::connect(
        &m_store, &BuildingStore::buildingRemoved, &hub, [&hub](const BuildingConfig &b) {
            hub.broadcast(sm::BuildingDeleted, QJsonObject{{k::Id, b.id}, {k::Name_, b.name}},
                          EventHub::Delivery::Always);
        });
    QObject::connect(
        supervisor, &BuildingSupervisor::changed, &hub, [&hub, supervisor](const QString &id) {
            if (const auto building = supervisor->describe(id))
                hub.broadcast(sm::BuildingUpdated, *building, EventHub::Delivery::Always);
        });
    QObject::connect(
        supervisor, &BuildingSupervisor::output, &hub,
        [&hub](const QString &id, const QByteArray &utf8, bool isError, qint64 skippedBefore) {
            QJsonObject payload{{sk::BuildingId, id},
                                {wire::key::Text, QString::fromUtf8(utf8)},
                                {sk::Stream, isError ? ss::Stderr : ss::Stdout}};
            if (skippedBefore > 0)
                payload.insert(sk::SkippedBytes, skippedBefore);
            hub.broadcast(sm::BuildingOutput, payload);
        });
}

} // namespace flotilla
