#include "controllers/BossController.h"

#include "boss/BossLogging.h"
#include "boss/BossService.h"
#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/BossNames.h"
#include "protocol/Envelope.h"
#include "protocol/WireNames.h"
#include "ws/EventHub.h"

#include <QJsonArray>
#include <QWebSocket>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace bk = wire::boss::key;
namespace bm = wire::boss::msg;

namespace {

constexpr int kMaxCommandChars = 100'000;
constexpr int kMaxSummaryChars = 20'000;

// A string field of a client payload (presence is checked by the hub or the caller).
Result<QString> stringOf(const QJsonObject &o, QLatin1String key) {
    const QJsonValue v = o.value(key);
    if (!v.isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be a string").arg(key));
    return v.toString();
}

Result<QStringList> idsOf(const QJsonObject &o, QLatin1String key) {
    const QJsonValue v = o.value(key);
    QStringList ids;
    bool ok = v.isArray();
    for (const QJsonValue &id : v.toArray()) {
        ok = ok && id.isString();
        if (ok && !ids.contains(id.toString()))
            ids << id.toString();
    }
    if (!ok)
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be an array of strings").arg(key));
    return ids;
}

Result<QString> requiredText(const QJsonObject &o, QLatin1String key, int maxChars) {
    if (!o.contains(key))
        return Error::badRequest(c::MissingField,
                                 QStringLiteral("field '%1' is required").arg(key));
    auto s = stringOf(o, key);
    if (!s)
        return s;
    if (s->trimmed().isEmpty())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field '%1' must not be empty").arg(key));
    if (s->size() > maxChars)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field '%1' is longer than %2 characters").arg(key).arg(maxChars));
    return s;
}

QJsonArray toArray(const QList<boss::Delegation> &list) {
    QJsonArray array;
    for (const boss::Delegation &d : list)
        array.append(d.toJson());
    return array;
}

} // namespace

BossController::BossController(AgentRegistry &agents, AgentRuntime &runtime, Database &db,
                               EventHub &hub, Clock clock)
    : m_hub(hub)
    , m_agents(agents) {
    boss::Publish publish = [&hub](QLatin1String type, const QJsonValue &payload, bool always) {
        hub.broadcast(type, payload,
                      always ? EventHub::Delivery::Always : EventHub::Delivery::Droppable);
    };
    m_service = std::make_unique<boss::BossService>(agents, runtime, db, publish, std::move(clock));
    if (Status e = m_service->start())
        qCCritical(lcBoss).noquote() << "boss state not loaded:" << e->message;
    boss::BossService *service = m_service.get();
    hub.setWorkPlansProvider([service] { return service->plans().listJson(); });
    registerMessages();
}

BossController::~BossController() {
    m_hub.setWorkPlansProvider({}); // the hub may outlive us during teardown
}

void BossController::refuse(QWebSocket *ws, const Error &e) {
    m_hub.sendTo(ws, wire::msg::Error, errorPayload(e.message, e.code));
}

void BossController::registerRoutes(HttpServer &http) {
    http.route(
        Method::Post, QStringLiteral("/api/agents/:id/report-task"),
        [this](const ApiRequest &r) { return reportTask(r); }, Access::Agent);
    http.route(Method::Get, QStringLiteral("/api/agents/:id/delegations"),
               [this](const ApiRequest &r) { return delegations(r); });
    http.route(Method::Get, QStringLiteral("/api/work-plans"),
               [this](const ApiRequest &r) { return workPlans(r); });
    http.route(Method::Get, QStringLiteral("/api/work-plans/:id"),
               [this](const ApiRequest &r) { return workPlan(r); });
    http.route(Method::Delete, QStringLiteral("/api/work-plans/:id"),
               [this](const ApiRequest &r) { return deleteWorkPlan(r); });
}

// POST /api/agents/:id/report-task {summary, status: completed|failed}
//   -> 200 {success, forwarded, bossId, taskId, reason?} | 400 | 404 | 422
Reply BossController::reportTask(const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    if (!m_agents.find(id))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
    API_TRY(body, r.jsonObject());
    API_TRY(summary, requiredText(body, bk::Summary, kMaxSummaryChars));
    API_TRY(status, requiredText(body, k::Status, 20));
    if (status != wire::boss::report::Completed && status != wire::boss::report::Failed)
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'status' must be 'completed' "
                                                              "or 'failed', got '%1'")
                                                   .arg(status.left(20)));
    API_TRY(out, m_service->report(id, status == wire::boss::report::Completed, summary.trimmed()));
    QJsonObject reply{
        {k::Success, true},
        {bk::Forwarded, out.forwarded},
        {k::BossId, out.bossId.isEmpty() ? QJsonValue() : QJsonValue(out.bossId)},
        {bk::TaskId, out.taskId.isEmpty() ? QJsonValue() : QJsonValue(out.taskId)},
    };
    if (!out.forwarded)
        reply.insert(k::Reason, out.reason);
    return Reply::json(reply);
}

// GET /api/agents/:id/delegations?limit=100 -> 200 {bossId, decisions} (newest first) | 400 |
// 404 | 422
Reply BossController::delegations(const ApiRequest &r) const {
    API_TRY(limit, r.intQuery(QStringLiteral("limit"), boss::DelegationStore::kDefaultHistory, 1,
                              boss::DelegationStore::kMaxHistory));
    const QString id = r.param(QStringLiteral("id"));
    API_TRY(list, m_service->history(id, limit));
    return Reply::json(QJsonObject{{k::BossId, id}, {bk::Decisions, toArray(list)}});
}

// GET /api/work-plans?bossId= -> 200 {workPlans} (newest first)
Reply BossController::workPlans(const ApiRequest &r) const {
    return Reply::json(QJsonObject{
        {bk::WorkPlans, m_service->plans().listJson(r.queryValue(QStringLiteral("bossId")))}});
}

// GET /api/work-plans/:id -> 200 plan | 404
Reply BossController::workPlan(const ApiRequest &r) const {
    const QString id = r.param(QStringLiteral("id"));
    const boss::WorkPlan *plan = m_service->plans().find(id);
    if (!plan)
        return Error::notFound(c::NotFound, QStringLiteral("no work plan with id '%1'").arg(id));
    return Reply::json(plan->toJson());
}

// DELETE /api/work-plans/:id -> 204 | 404 (work_plan_deleted)
Reply BossController::deleteWorkPlan(const ApiRequest &r) {
    API_CHECK(m_service->deletePlan(r.param(QStringLiteral("id"))));
    return Reply::noContent();
}

void BossController::registerMessages() {
    boss::BossService *service = m_service.get();
    EventHub *hub = &m_hub;
    const QString bossId = QString(k::BossId);

    // spawn_boss_agent {name, cwd, class?, provider?, model?, subordinateIds?}
    //   -> agent_created, agent_updated {isBoss, subordinateIds}, boss_subordinates_updated
    hub->registerIncoming(bm::SpawnBossAgent,
                          {{QString(k::Name_), QString(k::Cwd)},
                           [this, service](QWebSocket *ws, const QJsonObject &p) {
                               const auto created = service->team().spawnBoss(p);
                               if (!created)
                                   refuse(ws, created.error());
                           }});

    // assign_subordinates {bossId, subordinateIds} -> boss_subordinates_updated (per boss changed)
    hub->registerIncoming(bm::AssignSubordinates,
                          {{bossId, QString(k::SubordinateIds)},
                           [this, service](QWebSocket *ws, const QJsonObject &p) {
                               const auto id = stringOf(p, k::BossId);
                               if (!id)
                                   return refuse(ws, id.error());
                               const auto ids = idsOf(p, k::SubordinateIds);
                               if (!ids)
                                   return refuse(ws, ids.error());
                               if (Status e = service->team().assign(*id, *ids))
                                   refuse(ws, *e);
                           }});

    // remove_subordinate {bossId, subordinateId} -> boss_subordinates_updated
    hub->registerIncoming(bm::RemoveSubordinate,
                          {{bossId, QString(bk::SubordinateId)},
                           [this, service](QWebSocket *ws, const QJsonObject &p) {
                               const auto id = stringOf(p, k::BossId);
                               const auto sub = stringOf(p, bk::SubordinateId);
                               if (!id || !sub)
                                   return refuse(ws, !id ? id.error() : sub.error());
                               if (Status e = service->team().remove(*id, *sub))
                                   refuse(ws, *e);
                           }});

    // send_boss_command {bossId, command} -> the boss's turn; then delegation_decision...
    hub->registerIncoming(
        bm::SendBossCommand,
        {{bossId, QString(bk::Command)}, [this, service](QWebSocket *ws, const QJsonObject &p) {
             const auto id = stringOf(p, k::BossId);
             if (!id)
                 return refuse(ws, id.error());
             const auto command = requiredText(p, bk::Command, kMaxCommandChars);
             if (!command)
                 return refuse(ws, command.error());
             if (Status e = service->sendCommand(*id, *command))
                 refuse(ws, *e);
         }});

    // request_delegation_history {bossId, limit?} -> delegation_history {bossId, decisions}
    hub->registerIncoming(
        bm::RequestDelegationHistory,
        {{bossId}, [this, service, hub](QWebSocket *ws, const QJsonObject &p) {
             const auto id = stringOf(p, k::BossId);
             if (!id)
                 return refuse(ws, id.error());
             int limit = boss::DelegationStore::kDefaultHistory;
             if (p.contains(bk::Limit)) {
                 const QJsonValue v = p.value(bk::Limit);
                 if (!v.isDouble() || v.toDouble() < 1 ||
                     v.toDouble() > boss::DelegationStore::kMaxHistory)
                     return refuse(ws,
                                   Error::invalid(c::InvalidValue,
                                                  QStringLiteral("field 'limit' must be an "
                                                                 "integer from 1 to %1")
                                                      .arg(boss::DelegationStore::kMaxHistory)));
                 limit = v.toInt();
             }
             const auto list = service->history(*id, limit);
             if (!list)
                 return refuse(ws, list.error());
             hub->sendTo(ws, bm::DelegationHistory,
                         QJsonObject{{k::BossId, *id}, {bk::Decisions, toArray(*list)}});
         }});

    // approve_work_plan {planId} / cancel_work_plan {planId} -> work_plan_updated (and the
    // approved plan's delegations)
    const auto planAction =
        [this](Result<boss::WorkPlan> (boss::BossService::*action)(const QString &)) {
            return [this, action](QWebSocket *ws, const QJsonObject &p) {
                const auto id = stringOf(p, bk::PlanId);
                if (!id)
                    return refuse(ws, id.error());
                const auto plan = (m_service.get()->*action)(*id);
                if (!plan)
                    refuse(ws, plan.error());
            };
        };
    hub->registerIncoming(bm::ApproveWorkPlan,
                          {{QString(bk::PlanId)}, planAction(&boss::BossService::approvePlan)});
    hub->registerIncoming(bm::CancelWorkPlan,
                          {{QString(bk::PlanId)}, planAction(&boss::BossService::cancelPlan)});

    // request_work_plans {bossId?} -> work_plans_update (to that client)
    hub->registerIncoming(bm::RequestWorkPlans,
                          {{}, [service, hub](QWebSocket *ws, const QJsonObject &p) {
                               hub->sendTo(
                                   ws, wire::msg::WorkPlansUpdate,
                                   service->plans().listJson(p.value(k::BossId).toString()));
                           }});
}

} // namespace flotilla
