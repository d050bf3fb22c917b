#pragma once
// Synchronous-looking helpers over real sockets: QNetworkAccessManager for well-formed requests,
// a raw QTcpSocket for everything a well-behaved client would never send.

#include <QByteArray>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QTcpSocket>
#include <QUrl>

#include <functional>

namespace flotilla::test {

struct HttpResponse {
    int status = 0; // 0: no HTTP answer (connection error)
    QByteArray body;
    QHash<QByteArray, QByteArray> headers; // lower-cased names
    QString networkError;

    QJsonObject object() const { return QJsonDocument::fromJson(body).object(); }
    QJsonArray array() const { return QJsonDocument::fromJson(body).array(); }
    bool isJson() const { return !QJsonDocument::fromJson(body).isNull(); }
    QByteArray header(const QByteArray &lower) const { return headers.value(lower); }
};

class HttpClient final {
public:
    explicit HttpClient(QByteArray token = {})
        : m_token(std::move(token)) {}
    void setToken(const QByteArray &t) { m_token = t; }

    HttpResponse send(const QByteArray &method, const QUrl &url, const QByteArray &body = {},
                      const QHash<QByteArray, QByteArray> &headers = {}, int timeoutMs = 10000);
    HttpResponse get(const QUrl &url) { return send("GET", url); }
    HttpResponse del(const QUrl &url) { return send("DELETE", url); }
    HttpResponse post(const QUrl &url, const QJsonObject &o) {
        return send("POST", url, QJsonDocument(o).toJson(QJsonDocument::Compact));
    }
    HttpResponse patch(const QUrl &url, const QJsonObject &o) {
        return send("PATCH", url, QJsonDocument(o).toJson(QJsonDocument::Compact));
    }

private:
    QNetworkAccessManager m_nam;
    QByteArray m_token;
};

// Raw-socket helpers. They spin the event loop (never block it): the service under test may run
// in this very thread.
bool connectRaw(QTcpSocket &s, quint16 port, int timeoutMs = 3000);
// Reads until `done(buffer)` is true, the peer closes, or the timeout passes.
QByteArray readUntil(QTcpSocket &s, const std::function<bool(const QByteArray &)> &done,
                     int timeoutMs);
// Drains until the peer closes; false on timeout.
bool waitClosed(QTcpSocket &s, int timeoutMs);

// Sends `bytes` on a fresh connection and collects everything until the server closes or
// `timeoutMs` passes. Returns the raw response bytes.
QByteArray rawExchange(quint16 port, const QByteArray &bytes, int timeoutMs = 5000,
                       bool *closedByServer = nullptr);
// Parses the status code of the first response in raw bytes (0 if none).
int rawStatus(const QByteArray &response);
QByteArray rawBody(const QByteArray &response);

} // namespace flotilla::test
