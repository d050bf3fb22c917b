#include "support/HttpClient.h"

#include <QElapsedTimer>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QTest>

namespace flotilla::test {

HttpResponse HttpClient::send(const QByteArray &method, const QUrl &url, const QByteArray &body,
                              const QHash<QByteArray, QByteArray> &headers, int timeoutMs) {
    QNetworkRequest req(url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    if (!m_token.isEmpty())
        req.setRawHeader("X-Auth-Token", m_token);
    for (auto it = headers.constBegin(); it != headers.constEnd(); ++it)
        req.setRawHeader(it.key(), it.value());
    // QNAM only knows a HEAD response has no body when it sent it as HEAD.
    QNetworkReply *reply =
        method == "HEAD" ? m_nam.head(req) : m_nam.sendCustomRequest(req, method, body);
    QSignalSpy done(reply, &QNetworkReply::finished);
    HttpResponse r;
    if (!reply->isFinished() && !done.wait(timeoutMs)) {
        r.networkError = QStringLiteral("timeout");
        reply->abort();
        reply->deleteLater();
        return r;
    }
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    for (const auto &pair : reply->rawHeaderPairs())
        r.headers.insert(pair.first.toLower(), pair.second);
    if (reply->error() != QNetworkReply::NoError && r.status == 0)
        r.networkError = reply->errorString();
    reply->deleteLater();
    return r;
}

bool connectRaw(QTcpSocket &s, quint16 port, int timeoutMs) {
    s.connectToHost(QHostAddress::LocalHost, port);
    return QTest::qWaitFor([&] { return s.state() == QAbstractSocket::ConnectedState; }, timeoutMs);
}

QByteArray readUntil(QTcpSocket &s, const std::function<bool(const QByteArray &)> &done,
                     int timeoutMs) {
    QByteArray got;
    (void)QTest::qWaitFor(
        [&] {
            got += s.readAll();
            return done(got) || s.state() != QAbstractSocket::ConnectedState;
        },
        timeoutMs);
    return got + s.readAll();
}

bool waitClosed(QTcpSocket &s, int timeoutMs) {
    return QTest::qWaitFor(
        [&] {
            s.readAll();
            return s.state() != QAbstractSocket::ConnectedState;
        },
        timeoutMs);
}

QByteArray rawExchange(quint16 port, const QByteArray &bytes, int timeoutMs, bool *closedByServer) {
    QTcpSocket s;
    if (!connectRaw(s, port, timeoutMs))
        return {};
    s.write(bytes);
    const QByteArray got = readUntil(
        s, [](const QByteArray &) { return false; }, timeoutMs);
    if (closedByServer)
        *closedByServer = s.state() != QAbstractSocket::ConnectedState;
    return got;
}

int rawStatus(const QByteArray &response) {
    if (!response.startsWith("HTTP/1."))
        return 0;
    return response.mid(9, 3).toInt();
}

QByteArray rawBody(const QByteArray &response) {
    const qsizetype end = response.indexOf("\r\n\r\n");
    return end < 0 ? QByteArray() : response.mid(end + 4);
}

} // namespace flotilla::test
