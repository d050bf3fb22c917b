#include "controllers/BulkSupport.h"

#include "http/HttpServer.h"
#include "protocol/WireNames.h"

#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;

Result<QStringList> agentIdsOf(const QJsonObject &body) {
    if (!body.contains(k::AgentIds))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'agentIds' is required"));
    const Error wrongType = Error::badRequest(
        c::WrongType, QStringLiteral("field 'agentIds' must be an array of strings"));
    if (!body.value(k::AgentIds).isArray())
        return wrongType;
    QStringList ids;
    const QJsonArray array = body.value(k::AgentIds).toArray();
    for (const QJsonValue &v : array) {
        if (!v.isString())
            return wrongType;
        if (!ids.contains(v.toString()))
            ids.append(v.toString());
    }
    return ids;
}

QJsonObject bulkResult(const QStringList &ids, const BulkOp &op) {
    QJsonArray succeeded, failed;
    for (const QString &id : ids) {
        if (Status e = op(id))
            failed.append(QJsonObject{{k::Id, id}, {k::Error, e->message}});
        else
            succeeded.append(id);
    }
    return QJsonObject{{k::Succeeded, succeeded}, {k::Failed, failed}};
}

Reply bulkReply(const QStringList &ids, const BulkOp &op) {
    return Reply::json(bulkResult(ids, op));
}

void bulkRoute(HttpServer &http, const QString &name, BulkPrepare prepare, BulkFinish finish) {
    http.route(
        Method::Post, QStringLiteral("/api/agents/bulk/") + name,
        [prepare = std::move(prepare), finish = std::move(finish)](const ApiRequest &r) -> Reply {
            const auto body = r.jsonObject();
            if (!body)
                return body.error();
            const auto ids = agentIdsOf(*body);
            if (!ids)
                return ids.error();
            const auto op = prepare(*body);
            if (!op)
                return op.error();
            Reply reply = bulkReply(*ids, *op);
            if (finish) {
                if (Status e = finish())
                    return *e;
            }
            return reply;
        });
}

} // namespace flotilla
