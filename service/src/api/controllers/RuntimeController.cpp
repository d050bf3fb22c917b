#include "controllers/RuntimeController.h"

#include "agents/AgentRuntime.h"
#include "controllers/BulkSupport.h"
#include "domain/AgentRegistry.h"
#include "domain/AgentValidation.h"
#include "domain/ToolHistory.h"
#include "http/HttpServer.h"
#include "protocol/WireNames.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;

namespace {

constexpr int kMaxMessageChars = 200'000;

} // namespace

RuntimeController::RuntimeController(AgentRegistry &agents, AgentRuntime &runtime,
                                     ToolHistory &tools)
    : m_agents(agents)
    , m_runtime(runtime)
    , m_tools(tools) {
}

void RuntimeController::registerRoutes(HttpServer &http) {
    http.route(Method::Post, QStringLiteral("/api/agents/:id/message"),
               [this](const ApiRequest &r) { return message(r); });
    http.route(Method::Post, QStringLiteral("/api/agents/bulk/stop"),
               [this](const ApiRequest &r) { return bulkStop(r); });
    http.route(Method::Post, QStringLiteral("/api/agents/bulk/clear-context"),
               [this](const ApiRequest &r) { return bulkClearContext(r); });
    http.route(Method::Post, QStringLiteral("/api/agents/bulk/change-model"),
               [this](const ApiRequest &r) { return bulkChangeModel(r); });
    http.route(Method::Get, QStringLiteral("/api/agents/tool-history"),
               [this](const ApiRequest &r) { return toolHistory(r); });
}

// POST /api/agents/:id/message {message} -> 200 {success, agentId, agentName, message} | 400 |
// 404 | 422 | 503
Reply RuntimeController::message(const ApiRequest &r) {
    const QString id = r.param(QStringLiteral("id"));
    const Agent *agent = m_agents.find(id);
    if (!agent)
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(id));
    API_TRY(body, r.jsonObject());
    if (!body.contains(k::Message))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'message' is required"));
    if (!body.value(k::Message).isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'message' must be a string"));
    const QString text = body.value(k::Message).toString();
    if (text.trimmed().isEmpty())
        return Error::badRequest(c::InvalidValue,
                                 QStringLiteral("field 'message' must not be empty"));
    if (text.size() > kMaxMessageChars)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'message' is longer than %1 characters").arg(kMaxMessageChars));
    const QString name = agent->name;
    API_TRY(queued, m_runtime.sendMessage(id, text));
    return Reply::json(QJsonObject{
        {k::Success, true},
        {k::AgentId, id},
        {k::AgentName, name},
        {k::Message,
         queued == 0 ? QStringLiteral("Message sent to %1").arg(name)
                     : QStringLiteral("Message queued for %1 (position %2)").arg(name).arg(queued)},
    });
}

// POST /api/agents/bulk/stop {agentIds} -> 200 {succeeded, failed} | 400
Reply RuntimeController::bulkStop(const ApiRequest &r) {
    AgentRuntime &runtime = m_runtime;
    return bulkReply(r, [&runtime](const QJsonObject &) -> Result<BulkOp> {
        return BulkOp([&runtime](const QString &id) { return runtime.stop(id); });
    });
}

// POST /api/agents/bulk/clear-context {agentIds} -> 200 {succeeded, failed} | 400
Reply RuntimeController::bulkClearContext(const ApiRequest &r) {
    AgentRuntime &runtime = m_runtime;
    return bulkReply(r, [&runtime](const QJsonObject &) -> Result<BulkOp> {
        return BulkOp([&runtime](const QString &id) { return runtime.clearContext(id); });
    });
}

// POST /api/agents/bulk/change-model {agentIds, provider, model} -> 200 {succeeded, failed} |
// 400 | 422
Reply RuntimeController::bulkChangeModel(const ApiRequest &r) {
    AgentRuntime &runtime = m_runtime;
    const ProviderCatalog &providers = m_agents.providers();
    return bulkReply(r, [&runtime, &providers](const QJsonObject &body) -> Result<BulkOp> {
        for (QLatin1String field : {k::Provider, k::Model}) {
            if (!body.contains(field))
                return Error::badRequest(c::MissingField,
                                         QStringLiteral("field '%1' is required").arg(field));
            if (!body.value(field).isString())
                return Error::badRequest(c::WrongType,
                                         QStringLiteral("field '%1' must be a string").arg(field));
        }
        const QString provider = body.value(k::Provider).toString();
        const QString model = body.value(k::Model).toString();
        API_CHECK(validateProviderModel(provider, model, providers));
        return BulkOp([&runtime, provider, model](const QString &id) {
            return runtime.changeModel(id, provider, model);
        });
    });
}

// GET /api/agents/tool-history?limit=100&agentId= -> 200 {toolExecutions: [...]}, newest first
// | 400 | 422
Reply RuntimeController::toolHistory(const ApiRequest &r) const {
    API_TRY(limit, r.intQuery(QStringLiteral("limit"), ToolHistory::kDefaultLimit, 1,
                              ToolHistory::kMaxLimit));
    API_TRY(list, m_tools.list(limit, r.queryValue(QStringLiteral("agentId"))));
    return Reply::json(QJsonObject{{k::ToolExecutions, list}});
}

} // namespace flotilla
