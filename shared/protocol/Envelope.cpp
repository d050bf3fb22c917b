#include "protocol/Envelope.h"

#include "protocol/WireNames.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace flotilla {

QByteArray encodeEvent(QLatin1String type, const QJsonValue &payload) {
    const QJsonObject envelope{{wire::key::Type, type}, {wire::key::Payload, payload}};
    return QJsonDocument(envelope).toJson(QJsonDocument::Compact);
}

std::optional<ClientMessage> decodeClientMessage(const QByteArray &text, QString *why) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    if (err.error != QJsonParseError::NoError) {
        *why = QStringLiteral("malformed JSON at offset %1: %2")
                   .arg(err.offset)
                   .arg(err.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *why = QStringLiteral("a message must be a JSON object");
        return std::nullopt;
    }
    const QJsonObject obj = doc.object();
    const QJsonValue type = obj.value(wire::key::Type);
    if (!type.isString() || type.toString().isEmpty()) {
        *why = QStringLiteral("missing string field 'type'");
        return std::nullopt;
    }
    const QJsonValue payload = obj.value(wire::key::Payload);
    if (!payload.isUndefined() && !payload.isNull() && !payload.isObject()) {
        *why = QStringLiteral("'payload' must be an object");
        return std::nullopt;
    }
    return ClientMessage{type.toString(), payload.toObject()};
}

QJsonObject errorPayload(const QString &message, QLatin1String code) {
    return QJsonObject{{wire::key::Message, message}, {wire::key::Code, code}};
}

} // namespace flotilla
