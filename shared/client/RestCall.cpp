#include "client/RestCall.h"

#include "protocol/WireNames.h"

#include <QNetworkReply>

namespace flotilla::client::detail {

namespace k = ::flotilla::wire::key;

QNetworkRequest buildRequest(const Endpoint &endpoint, const QString &path) {
    QUrl url = endpoint.baseUrl;
    const qsizetype q = path.indexOf(QLatin1Char('?'));
    // The base URL may carry a prefix (a reverse proxy); the API path goes after it.
    QString basePath = url.path();
    if (basePath.endsWith(QLatin1Char('/')))
        basePath.chop(1);
    url.setPath(basePath + (q < 0 ? path : path.left(q)));
    url.setQuery(q < 0 ? QString() : path.mid(q + 1));
    QNetworkRequest request(url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setRawHeader(QByteArrayLiteral("Accept"), QByteArrayLiteral("application/json"));
    if (!endpoint.token.isEmpty())
        request.setRawHeader(QByteArrayLiteral("X-Auth-Token"), endpoint.token);
    // A redirect would carry the token elsewhere; the service never redirects.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute,
                         QNetworkRequest::ManualRedirectPolicy);
    return request;
}

RestReply readReply(QNetworkReply *reply) {
    RestReply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray bytes = reply->readAll();
    if (!bytes.isEmpty()) {
        QJsonParseError err{};
        out.body = QJsonDocument::fromJson(bytes, &err);
        if (err.error != QJsonParseError::NoError && out.ok())
            out.error = QStringLiteral("invalid JSON in the answer: ") + err.errorString();
    }
    if (out.status == 0) {
        out.error = reply->errorString();
        return out;
    }
    if (!out.ok()) {
        const QJsonObject o = out.body.object();
        out.error = o.value(k::Error).toString();
        out.code = o.value(k::Code).toString();
        if (out.error.isEmpty())
            out.error = QStringLiteral("HTTP %1").arg(out.status);
    }
    return out;
}

} // namespace flotilla::client::detail
