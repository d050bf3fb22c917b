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

RuntimeController::RuntimeController(HttpServer &http, AgentRegistry &agents, AgentRuntime &runtime,
                                     ToolHistory &tools, QObject *parent)
    : QObject(parent) {
    // POST /api/agents/:id/message {message} -> 200 {success, agentId, agentName, message} | 400 |
    // 404 | 422 | 503
    http.route(
        Method::Post, QStringLiteral("/api/agents/:id/message"),
        [&agents, &runtime](const ApiRequest &r) -> Reply {
            const QString id = r.param(QStringLiteral("id"));
            const Agent *agent = agents.find(id);
            if (!agent)
                return Error::notFound(c::NotFound,
                                       QStringLiteral("no agent with id '%1'").arg(id));
            const auto body = r.jsonObject();
            if (!body)
                return body.error();
            if (!body->contains(k::Message))
                return Error::badRequest(c::MissingField,
                                         QStringLiteral("field 'message' is required"));
            if (!body->value(k::Message).isString())
                return Error::badRequest(c::WrongType,
                                         QStringLiteral("field 'message' must be a string"));
            const QString text = body->value(k::Message).toString();
            if (text.trimmed().isEmpty())
                return Error::badRequest(c::InvalidValue,
                                         QStringLiteral("field 'message' must not be empty"));
            if (text.size() > kMaxMessageChars)
                return Error::invalid(c::InvalidValue,
                                      QStringLiteral("field 'message' is longer than %1 characters")
                                          .arg(kMaxMessageChars));
            const QString name = agent->name;
            const auto queued = runtime.sendMessage(id, text);
            if (!queued)
                return queued.error();
            return Reply::json(QJsonObject{
                {k::Success, true},
                {k::AgentId, id},
                {k::AgentName, name},
                {k::Message, *queued == 0 ? QStringLiteral("Message sent to %1").arg(name)
                                          : QStringLiteral("Message queued for %1 (position %2)")
                                                .arg(name)
                                                .arg(*queued)},
            });
        });

    // POST /api/agents/bulk/stop {agentIds} -> 200 {succeeded, failed} | 400
    bulkRoute(http, QStringLiteral("stop"), [&runtime](const QJsonObject &) -> Result<BulkOp> {
        return BulkOp([&runtime](const QString &id) { return runtime.stop(id); });
    });

    // POST /api/agents/bulk/clear-context {agentIds} -> 200 {succeeded, failed} | 400
    bulkRoute(http, QStringLiteral("clear-context"),
              [&runtime](const QJsonObject &) -> Result<BulkOp> {
                  return BulkOp([&runtime](const QString &id) { return runtime.clearContext(id); });
              });

    // POST /api/agents/bulk/change-model {agentIds, provider, model} -> 200 {succeeded, failed} |
    // 400 | 422
    bulkRoute(http, QStringLiteral("change-model"),
              [&runtime](const QJsonObject &body) -> Result<BulkOp> {
                  for (QLatin1String field : {k::Provider, k::Model}) {
                      if (!body.contains(field))
                          return Error::badRequest(
                              c::MissingField, QStringLiteral("field '%1' is required").arg(field));
                      if (!body.value(field).isString())
                          return Error::badRequest(
                              c::WrongType,
                              QStringLiteral("field '%1' must be a string").arg(field));
                  }
                  const QString provider = body.value(k::Provider).toString();
                  const QString model = body.value(k::Model).toString();
                  if (Status e = validateProviderModel(provider, model))
                      return *e;
                  return BulkOp([&runtime, provider, model](const QString &id) {
                      return runtime.changeModel(id, provider, model);
                  });
              });

    // GET /api/agents/tool-history?limit=100&agentId= -> 200 {toolExecutions: [...]}, newest first
    http.route(Method::Get, QStringLiteral("/api/agents/tool-history"),
               [&tools](const ApiRequest &r) -> Reply {
                   const auto limit =
                       r.intQuery(QStringLiteral("limit"), ToolHistory::kDefaultLimit, 1,
                                  ToolHistory::kMaxLimit);
                   if (!limit)
                       return limit.error();
                   const auto list = tools.list(*limit, r.queryValue(QStringLiteral("agentId")));
                   if (!list)
                       return list.error();
                   return Reply::json(QJsonObject{{k::ToolExecutions, *list}});
               });
}

} // namespace flotilla
