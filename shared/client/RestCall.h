#pragma once
// The REST half of ServiceClient, kept apart so the WebSocket state machine reads on its own:
// building a request for a path under /api and turning a finished reply into a RestReply.

#include "client/ServiceClient.h"

#include <QNetworkRequest>

class QNetworkReply;

namespace flotilla::client::detail {

// `path` starts with /api and may carry a query ("/api/notifications?limit=50").
QNetworkRequest buildRequest(const Endpoint &endpoint, const QString &path);
// Reads status, JSON body and the service's {error, code} of a finished reply.
RestReply readReply(QNetworkReply *reply);

} // namespace flotilla::client::detail
