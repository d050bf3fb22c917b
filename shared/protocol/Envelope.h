#pragma once
// The WebSocket envelope: {"type": "...", "payload": {...}} in both directions.

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <optional>

namespace flotilla {

// Serialises one server event. Compact JSON; the hub sends these bytes to every client.
QByteArray encodeEvent(QLatin1String type, const QJsonValue &payload);

struct ClientMessage {
    QString type;
    QJsonObject payload;
};

// Decodes a client message; on failure returns nullopt and a human reason in *why.
// A message must be a JSON object with a string `type`; `payload` may be absent (empty object)
// but if present must be an object.
std::optional<ClientMessage> decodeClientMessage(const QByteArray &text, QString *why);

// Builds the payload of an `error` event.
QJsonObject errorPayload(const QString &message, QLatin1String code);

} // namespace flotilla
