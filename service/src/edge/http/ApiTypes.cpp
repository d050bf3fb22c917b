#include "http/ApiTypes.h"

#include "protocol/WireNames.h"

#include <QJsonDocument>
#include <QJsonParseError>

namespace flotilla {

namespace c = wire::code;

QLatin1String methodName(Method m) {
    switch (m) {
    case Method::Get:
        return QLatin1String("GET");
    case Method::Head:
        return QLatin1String("HEAD");
    case Method::Post:
        return QLatin1String("POST");
    case Method::Put:
        return QLatin1String("PUT");
    case Method::Patch:
        return QLatin1String("PATCH");
    case Method::Delete:
        return QLatin1String("DELETE");
    case Method::Options:
        return QLatin1String("OPTIONS");
    case Method::Other:
        break;
    }
    return QLatin1String("OTHER");
}

Result<QJsonObject> ApiRequest::jsonObject() const {
    if (body.trimmed().isEmpty())
        return Error::badRequest(c::BadJson,
                                 QStringLiteral("request body must be a JSON object, got nothing"));
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body, &err);
    if (err.error != QJsonParseError::NoError) {
        return Error::badRequest(c::BadJson, QStringLiteral("malformed JSON at offset %1: %2")
                                                 .arg(err.offset)
                                                 .arg(err.errorString()));
    }
    if (!doc.isObject())
        return Error::badRequest(c::BadJson, QStringLiteral("request body must be a JSON object"));
    return doc.object();
}

Result<int> ApiRequest::intQuery(const QString &key, int fallback, int min, int max) const {
    if (!query.hasQueryItem(key))
        return fallback;
    bool ok = false;
    const int v = queryValue(key).toInt(&ok);
    if (!ok)
        return Error::badRequest(
            c::WrongType, QStringLiteral("query parameter '%1' must be an integer").arg(key));
    if (v < min || v > max)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("query parameter '%1' must be between %2 and %3")
                                  .arg(key)
                                  .arg(min)
                                  .arg(max));
    return v;
}

Result<bool> ApiRequest::boolQuery(const QString &key, bool fallback) const {
    if (!query.hasQueryItem(key))
        return fallback;
    const QString v = queryValue(key).toLower();
    if (v == QLatin1String("true") || v == QLatin1String("1"))
        return true;
    if (v == QLatin1String("false") || v == QLatin1String("0"))
        return false;
    return Error::badRequest(c::WrongType,
                             QStringLiteral("query parameter '%1' must be true or false").arg(key));
}

Reply Reply::json(const QJsonObject &o, int status) {
    return rawJson(QJsonDocument(o).toJson(QJsonDocument::Compact), status);
}

Reply Reply::json(const QJsonArray &a, int status) {
    return rawJson(QJsonDocument(a).toJson(QJsonDocument::Compact), status);
}

Reply Reply::rawJson(QByteArray bytes, int status) {
    Reply r;
    r.status = status;
    r.body = std::move(bytes);
    return r;
}

Reply Reply::noContent() {
    Reply r;
    r.status = 204;
    r.contentType.clear();
    return r;
}

Reply::Reply(const Error &e)
    : status(statusFor(e.kind))
    , body(errorBody(e.code, e.message)) {
}

QByteArray errorBody(QLatin1String code, const QString &message) {
    return QJsonDocument(QJsonObject{{wire::key::Error, message}, {wire::key::Code, code}})
        .toJson(QJsonDocument::Compact);
}

int statusFor(ErrorKind kind) {
    switch (kind) {
    case ErrorKind::BadRequest:
        return 400;
    case ErrorKind::Unauthorized:
        return 401;
    case ErrorKind::Forbidden:
        return 403;
    case ErrorKind::NotFound:
        return 404;
    case ErrorKind::MethodNotAllowed:
        return 405;
    case ErrorKind::Conflict:
        return 409;
    case ErrorKind::TooLarge:
        return 413;
    case ErrorKind::Invalid:
        return 422;
    case ErrorKind::Unavailable:
        return 503;
    case ErrorKind::Internal:
        return 500;
    }
    return 500;
}

QByteArray reasonPhrase(int status) {
    switch (status) {
    case 100:
        return QByteArrayLiteral("Continue");
    case 200:
        return QByteArrayLiteral("OK");
    case 201:
        return QByteArrayLiteral("Created");
    case 204:
        return QByteArrayLiteral("No Content");
    case 304:
        return QByteArrayLiteral("Not Modified");
    case 400:
        return QByteArrayLiteral("Bad Request");
    case 401:
        return QByteArrayLiteral("Unauthorized");
    case 403:
        return QByteArrayLiteral("Forbidden");
    case 404:
        return QByteArrayLiteral("Not Found");
    case 405:
        return QByteArrayLiteral("Method Not Allowed");
    case 408:
        return QByteArrayLiteral("Request Timeout");
    case 409:
        return QByteArrayLiteral("Conflict");
    case 413:
        return QByteArrayLiteral("Payload Too Large");
    case 414:
        return QByteArrayLiteral("URI Too Long");
    case 415:
        return QByteArrayLiteral("Unsupported Media Type");
    case 417:
        return QByteArrayLiteral("Expectation Failed");
    case 422:
        return QByteArrayLiteral("Unprocessable Entity");
    case 431:
        return QByteArrayLiteral("Request Header Fields Too Large");
    case 500:
        return QByteArrayLiteral("Internal Server Error");
    case 501:
        return QByteArrayLiteral("Not Implemented");
    case 503:
        return QByteArrayLiteral("Service Unavailable");
    case 505:
        return QByteArrayLiteral("HTTP Version Not Supported");
    }
    return QByteArrayLiteral("Status");
}

} // namespace flotilla
