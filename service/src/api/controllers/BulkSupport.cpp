#include "controllers/BulkSupport.h"

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

Reply bulkReply(const ApiRequest &request, const BulkPrepare &prepare, const BulkFinish &finish) {
    API_TRY(body, request.jsonObject());
    API_TRY(ids, agentIdsOf(body));
    API_TRY(op, prepare(body));
    Reply reply = Reply::json(bulkResult(ids, op));
    if (finish)
        API_CHECK(finish());
    return reply;
}

} // namespace flotilla
