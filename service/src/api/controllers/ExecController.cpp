#include "controllers/ExecController.h"

#include "domain/AgentRegistry.h"
#include "http/HttpServer.h"
#include "protocol/ExecNames.h"
#include "ws/EventHub.h"

#include <QJsonArray>

#include <cmath>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace xm = wire::exec::msg;
namespace xk = wire::exec::key;

namespace {

QJsonValue optionalInt(const std::optional<int> &v) {
    return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

QJsonObject taskJson(const ExecTaskInfo &t) {
    return {{xk::TaskId, t.taskId},
            {k::AgentId, t.agentId},
            {k::AgentName, t.agentName},
            {xk::Command, t.command},
            {k::Cwd, t.cwd},
            {xk::StartedAt, t.startedAt},
            {xk::TimeoutMs, t.timeoutMs > 0 ? QJsonValue(t.timeoutMs) : QJsonValue()}};
}

// Fields both the REST result and exec_task_completed carry.
QJsonObject outcomeJson(const ExecTaskInfo &t, const ExecOutcome &o) {
    return {{xk::TaskId, t.taskId},       {xk::ExitCode, optionalInt(o.exitCode)},
            {k::Success, o.success()},    {xk::Killed, o.killed},
            {xk::TimedOut, o.timedOut},   {xk::Signal, optionalInt(o.signal)},
            {xk::Duration, o.durationMs}, {xk::Truncated, o.truncated}};
}

Status rejectUnknownFields(const QJsonObject &body, const QList<QLatin1String> &allowed) {
    QStringList unknown;
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            unknown.append(it.key());
    }
    if (unknown.isEmpty())
        return std::nullopt;
    QStringList names;
    for (QLatin1String a : allowed)
        names.append(a);
    return Error::invalid(c::UnknownField, QStringLiteral("unknown field(s): %1; allowed: %2")
                                               .arg(unknown.join(QStringLiteral(", ")),
                                                    names.join(QStringLiteral(", "))));
}

Result<QString> requiredString(const QJsonObject &body, QLatin1String key) {
    if (!body.contains(key))
        return Error::badRequest(c::MissingField,
                                 QStringLiteral("field '%1' is required").arg(key));
    if (!body.value(key).isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be a string").arg(key));
    return body.value(key).toString();
}

// {agentId, command, cwd?, timeoutMs?} -> the request, or a refusal naming the field. Checks that
// need the agents or the secrets are ExecService::start's.
Result<ExecRequest> parseExecRequest(const QJsonObject &body, const ExecLimits &limits) {
    API_CHECK(rejectUnknownFields(body, {k::AgentId, xk::Command, k::Cwd, xk::TimeoutMs}));
    ExecRequest r;
    API_TRY(agentId, requiredString(body, k::AgentId));
    r.agentId = agentId;
    API_TRY(command, requiredString(body, xk::Command));
    r.command = command;
    if (r.command.trimmed().isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'command' must not be empty"));
    if (r.command.contains(QChar(0)))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'command' must not contain NUL characters"));
    const QJsonValue cwd = body.value(k::Cwd);
    if (!cwd.isUndefined() && !cwd.isNull()) {
        if (!cwd.isString())
            return Error::badRequest(c::WrongType, QStringLiteral("field 'cwd' must be a string"));
        if (cwd.toString().isEmpty())
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field 'cwd' must be an absolute path, got ''"));
        r.cwd = cwd.toString();
    }
    const QJsonValue timeout = body.value(xk::TimeoutMs);
    if (!timeout.isUndefined() && !timeout.isNull()) {
        if (!timeout.isDouble())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field 'timeoutMs' must be an integer"));
        const double ms = timeout.toDouble();
        if (std::floor(ms) != ms || ms < 1 || ms > limits.maxTimeoutMs)
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field 'timeoutMs' must be an integer between 1 "
                                                 "and %1")
                                      .arg(limits.maxTimeoutMs));
        r.timeoutMs = int(ms);
    }
    return r;
}

// Output events wait while some client's socket holds this much unsent: what is queued for 50
// clients then stays around 50 x 320 KiB instead of the whole output 50 times.
constexpr qint64 kCongestedBacklogBytes = 256 * 1024;

ExecLimits execLimits(EventHub &hub) {
    ExecLimits limits;
    limits.job.stream.congested = [&hub] {
        return hub.largestHealthyBacklog() >= kCongestedBacklogBytes;
    };
    return limits;
}

} // namespace

ExecController::ExecController(AgentRegistry &agents, SecretStore &secrets,
                               const SandboxPolicy &sandbox, EventHub &hub, Clock clock,
                               ExecService::CredentialSource credentials)
    : m_agents(agents)
    , m_secrets(secrets)
    , m_exec(agents, m_secrets, sandbox, std::move(clock), execLimits(hub),
             std::move(credentials)) {
    wireEvents(hub);
}

ExecController::~ExecController() = default;

void ExecController::registerRoutes(HttpServer &http) {
    http.routeAsync(Method::Post, QStringLiteral("/api/exec"),
                    [this](const ApiRequest &r, const ReplyCallback &done) { exec(r, done); });
    http.route(Method::Get, QStringLiteral("/api/exec/tasks/:agentId"),
               [this](const ApiRequest &r) { return tasks(r); });
    http.route(Method::Delete, QStringLiteral("/api/exec/tasks/:taskId"),
               [this](const ApiRequest &r) { return killTask(r); });
    http.route(Method::Get, QStringLiteral("/api/secrets"),
               [this](const ApiRequest &r) { return listSecrets(r); });
    http.route(Method::Put, QStringLiteral("/api/secrets/:name"),
               [this](const ApiRequest &r) { return putSecret(r); });
    http.route(Method::Delete, QStringLiteral("/api/secrets/:name"),
               [this](const ApiRequest &r) { return deleteSecret(r); });
}

// POST /api/exec {agentId, command, cwd?, timeoutMs?} -> 200 {success, taskId, exitCode, output,
// duration, truncated, killed, timedOut, signal} when the command ends | 400 | 404 | 409 | 422 |
// 503
void ExecController::exec(const ApiRequest &r, const ReplyCallback &done) {
    API_TRY_ASYNC(done, body, r.jsonObject());
    API_TRY_ASYNC(done, request, parseExecRequest(body, m_exec.limits()));
    API_CHECK_ASYNC(done,
                    m_exec.start(request, [done](const ExecTaskInfo &t, const ExecOutcome &o) {
                        QJsonObject result = outcomeJson(t, o);
                        result.insert(xk::Output, QString::fromUtf8(o.output));
                        done(Reply::json(result));
                    }));
}

// GET /api/exec/tasks/:agentId -> 200 {tasks: [{taskId, agentId, agentName, command, cwd,
// startedAt, timeoutMs}]}, oldest first | 404
Reply ExecController::tasks(const ApiRequest &r) const {
    const QString agentId = r.param(QStringLiteral("agentId"));
    if (!m_agents.find(agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId));
    QJsonArray tasks;
    for (const ExecTaskInfo &t : m_exec.tasksOf(agentId))
        tasks.append(taskJson(t));
    return Reply::json(QJsonObject{{xk::Tasks, tasks}});
}

// DELETE /api/exec/tasks/:taskId -> 204 | 404. The task's process group gets SIGTERM, SIGKILL 2 s
// later; the waiting POST then answers {exitCode: null, killed: true}.
Reply ExecController::killTask(const ApiRequest &r) {
    API_CHECK(m_exec.kill(r.param(QStringLiteral("taskId"))));
    return Reply::noContent();
}

// GET /api/secrets -> 200 {secrets: [{name, createdAt, updatedAt}]}, by name; never values
Reply ExecController::listSecrets(const ApiRequest &) const {
    return Reply::json(QJsonObject{{xk::Secrets, m_secrets.list()}});
}

// PUT /api/secrets/:name {value} -> 201 (created) | 200 (replaced) {name, createdAt, updatedAt}
// | 400 | 409 | 422
Reply ExecController::putSecret(const ApiRequest &r) {
    const QString name = r.param(QStringLiteral("name"));
    API_CHECK(SecretStore::validateName(name));
    API_TRY(body, r.jsonObject());
    API_CHECK(rejectUnknownFields(body, {xk::Value}));
    API_TRY(value, requiredString(body, xk::Value));
    bool created = false;
    API_CHECK(m_secrets.set(name, value, &created));
    return Reply::json(m_secrets.describe(name), created ? 201 : 200);
}

// DELETE /api/secrets/:name -> 204 | 404 | 422
Reply ExecController::deleteSecret(const ApiRequest &r) {
    API_CHECK(m_secrets.remove(r.param(QStringLiteral("name"))));
    return Reply::noContent();
}

void ExecController::wireEvents(EventHub &hub) {
    // Started and completed are few and a client must see a task end: queued even for a lagging
    // client. Output may be dropped for a client that does not read (the hub's rule).
    QObject::connect(&m_exec, &ExecService::taskStarted, &hub, [&hub](const ExecTaskInfo &t) {
        hub.broadcast(xm::ExecTaskStarted, taskJson(t), EventHub::Delivery::Always);
    });
    QObject::connect(
        &m_exec, &ExecService::taskOutput, &hub,
        [&hub](const ExecTaskInfo &t, const QByteArray &utf8, bool isError, qint64 skippedBefore) {
            QJsonObject payload{{xk::TaskId, t.taskId},
                                {k::AgentId, t.agentId},
                                {xk::Output, QString::fromUtf8(utf8)},
                                {xk::IsError, isError}};
            if (skippedBefore > 0)
                payload.insert(xk::SkippedBytes, skippedBefore);
            hub.broadcast(xm::ExecTaskOutput, payload);
        });
    QObject::connect(&m_exec, &ExecService::taskCompleted, &hub,
                     [&hub](const ExecTaskInfo &t, const ExecOutcome &o) {
                         QJsonObject payload = outcomeJson(t, o);
                         payload.insert(k::AgentId, t.agentId);
                         payload.insert(xk::SkippedBytes, o.skippedBytes);
                         hub.broadcast(xm::ExecTaskCompleted, payload, EventHub::Delivery::Always);
                     });
}

} // namespace flotilla
