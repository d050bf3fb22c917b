#pragma once
// Answers that several controllers give alike: the 201 of a POST that creates an item, and the
// refusal of a DELETE whose item others still use, naming them.

#include "http/ApiTypes.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <utility>

namespace flotilla {

// `reply` (a 201) with Location: <collection>/<key>, where the new item now is.
inline Reply withLocation(Reply reply, const QString &collection, const QString &key) {
    reply.headers.append(
        {QByteArrayLiteral("Location"), (collection + QLatin1Char('/') + key).toUtf8()});
    return reply;
}

// 201 `item`, at <collection>/<key>.
inline Reply createdReply(const QJsonObject &item, const QString &collection, const QString &key) {
    return withLocation(Reply::json(item, 201), collection, key);
}

// The error's answer with, for each kind of user, the names of those that still use the item
// (`{agents: [...], classes: [...]}`), so that a client can say which to change first.
inline Reply inUseReply(const Error &error, const QList<std::pair<QString, QStringList>> &users) {
    QJsonObject body{{wire::key::Error, error.message}, {wire::key::Code, error.code}};
    for (const auto &[kind, names] : users)
        body.insert(kind, QJsonArray::fromStringList(names));
    return Reply::json(body, statusFor(error.kind));
}

} // namespace flotilla
