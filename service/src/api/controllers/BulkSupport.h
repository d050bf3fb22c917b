#pragma once
// The shape every POST /api/agents/bulk/<name> route shares: the body holds `agentIds` (array of
// strings, duplicates kept once, in order), the answer is {succeeded: [ids], failed: [{id,
// error}]}, and an unknown id lands in `failed` instead of failing the call. The runtime's
// (stop, clear-context, change-model) and the organization's (delete, move-area) bulk routes use
// it.

#include "http/ApiTypes.h"

#include <QStringList>

#include <functional>

namespace flotilla {

// What a bulk route does to one agent; an Error puts the id in `failed` with its message.
using BulkOp = std::function<Status(const QString &id)>;
// Checks the route's extra body fields once and returns the per-agent operation.
using BulkPrepare = std::function<Result<BulkOp>(const QJsonObject &body)>;
// Runs after every id was handled and before the answer (e.g. make the changes durable); an
// Error becomes the answer.
using BulkFinish = std::function<Status()>;

// {agentIds: [string]} -> the ids, or 400 missing_field / wrong_type.
Result<QStringList> agentIdsOf(const QJsonObject &body);

// Applies `op` to each id: {succeeded, failed}.
QJsonObject bulkResult(const QStringList &ids, const BulkOp &op);

// The answer of a bulk route: 200 {succeeded, failed} | 400 (body, agentIds) | what `prepare`
// or `finish` refused with.
Reply bulkReply(const ApiRequest &request, const BulkPrepare &prepare,
                const BulkFinish &finish = {});

} // namespace flotilla
