#pragma once
// The shape every POST /api/agents/bulk/<name> route shares (decisions.md "Bulk"): the body holds
// `agentIds` (array of strings, duplicates kept once, in order), the answer is
// {succeeded: [ids], failed: [{id, error}]}, and an unknown id lands in `failed` instead of
// failing the call. Owned by the organization slice; written so RuntimeController's private copy
// (stop, clear-context, change-model) can switch to it unchanged.

#include "http/ApiTypes.h"

#include <QStringList>

#include <functional>

namespace flotilla {

class HttpServer;

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
Reply bulkReply(const QStringList &ids, const BulkOp &op);

// Registers POST /api/agents/bulk/<name>.
void bulkRoute(HttpServer &http, const QString &name, BulkPrepare prepare, BulkFinish finish = {});

} // namespace flotilla
