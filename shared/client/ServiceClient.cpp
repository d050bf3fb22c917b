#include "client/ServiceClient.h"

#include "client/ClientLog.h"
#include "client/RestCall.h"
#include "protocol/WireNames.h"

#include <QElapsedTimer>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSet>
#include <QTimer>
#include <QWebSocket>

#include <algorithm>
#include <cmath>

Q_LOGGING_CATEGORY(lcClient, "flotilla.client", QtInfoMsg)

namespace flotilla::client {

namespace k = ::flotilla::wire::key;
namespace m = ::flotilla::wire::msg;

namespace {
// A handshake the service never completes is given up after this long (the service itself
// drops unfinished handshakes after 10 s).
constexpr int kConnectTimeoutMs = 15000;

// QWebSocket 6.4 reports a refused upgrade only as text: "... Unhandled http status code: 401
// (Unauthorized)." The status is the one thing we need from it.
int handshakeStatus(const QString &errorString) {
    static const QRegularExpression re(QStringLiteral("status code: (\\d{3})"));
    const auto match = re.match(errorString);
    return match.hasMatch() ? match.captured(1).toInt() : 0;
}
} // namespace

QString toString(ConnectionState state) {
    switch (state) {
    case ConnectionState::Disconnected:
        return QStringLiteral("Disconnected");
    case ConnectionState::Connecting:
        return QStringLiteral("Connecting");
    case ConnectionState::Connected:
        return QStringLiteral("Connected");
    case ConnectionState::Reconnecting:
        return QStringLiteral("Reconnecting");
    case ConnectionState::AuthFailed:
        return QStringLiteral("AuthFailed");
    }
    return QString();
}

qint64 backoffDelayMs(int attempt, int initialMs, int maxMs, double unit) {
    const int exponent = std::clamp(attempt - 1, 0, 30);
    const double base = std::min(double(maxMs), double(initialMs) * std::pow(2.0, exponent));
    const double factor = 0.8 + 0.4 * std::clamp(unit, 0.0, 1.0);
    return std::max<qint64>(1, qint64(base * factor));
}

struct ServiceClient::Private {
    explicit Private(ServiceClient *owner)
        : q(owner) {}

    ServiceClient *q;
    Endpoint endpoint;
    Endpoint active; // the endpoint of the current connection
    QNetworkAccessManager nam;
    QSet<QNetworkReply *> replies;
    QWebSocket *socket = nullptr;
    bool socketFailed = false; // the current socket has been handled as gone
    bool wanted = false;       // connectToService() called and not disconnected since
    ConnectionState state = ConnectionState::Disconnected;
    int attempt = 0;
    int initialBackoffMs = 500;
    int maxBackoffMs = 30000;
    int heartbeatIntervalMs = 30000;
    int heartbeatTimeoutMs = 75000;
    qint64 maxMessageBytes = 64 * 1024 * 1024;
    QTimer retryTimer;
    QTimer connectTimer;
    QTimer heartbeatTimer;
    QElapsedTimer sinceLastMessage;
    QElapsedTimer retryClock;
    qint64 retryDelay = -1;

    void setState(ConnectionState s) {
        if (state == s)
            return;
        state = s;
        qCDebug(lcClient) << "state" << toString(s);
        Q_EMIT q->stateChanged(s);
    }

    void dropSocket() {
        connectTimer.stop();
        heartbeatTimer.stop();
        if (!socket)
            return;
        QWebSocket *old = socket;
        socket = nullptr;
        QObject::disconnect(old, nullptr, q, nullptr);
        old->abort();
        old->deleteLater();
    }

    void openSocket();
    void onFailure(const QString &why, int status);
    void scheduleRetry();
    void onMessage(const QString &text);
    void request(const QByteArray &verb, const QString &path, const QByteArray &body,
                 Callback done);
};

void ServiceClient::Private::openSocket() {
    dropSocket();
    socketFailed = false;
    active = endpoint;
    socket = new QWebSocket(QString(), QWebSocketProtocol::VersionLatest, q);
    socket->setMaxAllowedIncomingMessageSize(quint64(maxMessageBytes));
    QWebSocket *s = socket;
    QObject::connect(s, &QWebSocket::connected, q, [this, s] {
        if (s != socket)
            return;
        connectTimer.stop();
        attempt = 0;
        retryDelay = -1;
        sinceLastMessage.start();
        if (heartbeatIntervalMs > 0)
            heartbeatTimer.start(heartbeatIntervalMs);
        setState(ConnectionState::Connected);
    });
    QObject::connect(s, &QWebSocket::textMessageReceived, q, [this, s](const QString &text) {
        if (s == socket)
            onMessage(text);
    });
    QObject::connect(s, &QWebSocket::binaryMessageReceived, q, [this, s](const QByteArray &) {
        if (s == socket)
            sinceLastMessage.start(); // the service never sends binary; alive all the same
    });
    QObject::connect(s, qOverload<QAbstractSocket::SocketError>(&QWebSocket::error), q,
                     [this, s](QAbstractSocket::SocketError) {
                         if (s == socket)
                             onFailure(s->errorString(), handshakeStatus(s->errorString()));
                     });
    QObject::connect(s, &QWebSocket::disconnected, q, [this, s] {
        if (s != socket)
            return;
        QString why = s->closeReason();
        if (why.isEmpty())
            why = QStringLiteral("connection closed (code %1)").arg(int(s->closeCode()));
        onFailure(why, 0);
    });

    QNetworkRequest request(q->webSocketUrl());
    // The header rather than ?token=: a query string lands in proxy and access logs.
    if (!active.token.isEmpty())
        request.setRawHeader(QByteArrayLiteral("X-Auth-Token"), active.token);
    connectTimer.start(kConnectTimeoutMs);
    qCDebug(lcClient) << "connecting to" << request.url().toString(QUrl::RemoveQuery);
    s->open(request);
}

void ServiceClient::Private::onFailure(const QString &why, int status) {
    if (socketFailed)
        return; // error and disconnected both report the same loss
    socketFailed = true;
    const bool wasConnected = state == ConnectionState::Connected;
    dropSocket();
    if (!wanted)
        return;
    if (status == 401 || status == 403) {
        // Retrying with the same token cannot succeed; the user has to change it.
        wanted = false;
        retryTimer.stop();
        retryDelay = -1;
        qCInfo(lcClient) << "the service refused the connection:" << status;
        Q_EMIT q->connectionError(status == 401
                                      ? QStringLiteral("The service refused the token (401).")
                                      : QStringLiteral("The service refused this client (403)."));
        setState(ConnectionState::AuthFailed);
        return;
    }
    qCInfo(lcClient) << (wasConnected ? "connection lost:" : "cannot connect:") << why;
    Q_EMIT q->connectionError(why);
    scheduleRetry();
}

void ServiceClient::Private::scheduleRetry() {
    ++attempt;
    retryDelay = backoffDelayMs(attempt, initialBackoffMs, maxBackoffMs,
                                QRandomGenerator::global()->generateDouble());
    retryClock.start();
    retryTimer.start(int(retryDelay));
    setState(ConnectionState::Reconnecting);
}

void ServiceClient::Private::onMessage(const QString &text) {
    sinceLastMessage.start();
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(text.toUtf8(), &err);
    const QJsonObject o = doc.object();
    const QString type = o.value(k::Type).toString();
    if (err.error != QJsonParseError::NoError || type.isEmpty()) {
        qCWarning(lcClient) << "ignoring a malformed message:" << err.errorString();
        return;
    }
    Q_EMIT q->eventReceived(type, o.value(k::Payload));
}

void ServiceClient::Private::request(const QByteArray &verb, const QString &path,
                                     const QByteArray &body, Callback done) {
    const QNetworkRequest req = detail::buildRequest(endpoint, path);
    QNetworkReply *reply =
        body.isNull() ? nam.sendCustomRequest(req, verb) : nam.sendCustomRequest(req, verb, body);
    replies.insert(reply);
    QObject::connect(reply, &QNetworkReply::finished, q, [this, reply, done = std::move(done)] {
        replies.remove(reply);
        reply->deleteLater();
        const RestReply r = detail::readReply(reply);
        if (!r.ok())
            qCDebug(lcClient) << reply->operation() << reply->url().path() << r.status << r.code
                              << r.error;
        if (done)
            done(r);
    });
}

ServiceClient::ServiceClient(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this)) {
    d->retryTimer.setSingleShot(true);
    connect(&d->retryTimer, &QTimer::timeout, this, [this] {
        d->retryDelay = -1;
        if (d->wanted)
            d->openSocket();
    });
    d->connectTimer.setSingleShot(true);
    connect(&d->connectTimer, &QTimer::timeout, this, [this] {
        d->onFailure(QStringLiteral("the service did not complete the WebSocket handshake"), 0);
    });
    connect(&d->heartbeatTimer, &QTimer::timeout, this, [this] {
        if (!d->socket || d->state != ConnectionState::Connected)
            return;
        if (d->heartbeatTimeoutMs > 0 && d->sinceLastMessage.elapsed() > d->heartbeatTimeoutMs) {
            d->onFailure(QStringLiteral("the service stopped answering"), 0);
            return;
        }
        sendEvent(QString(m::Ping));
    });
}

ServiceClient::~ServiceClient() {
    // Callbacks must not run into a half-destroyed owner: replies die silently.
    d->wanted = false;
    d->dropSocket();
    const QSet<QNetworkReply *> pending = d->replies;
    d->replies.clear();
    for (QNetworkReply *r : pending) {
        disconnect(r, nullptr, this, nullptr);
        r->abort();
        delete r;
    }
}

void ServiceClient::setEndpoint(const Endpoint &endpoint) {
    d->endpoint = endpoint;
}

Endpoint ServiceClient::endpoint() const {
    return d->endpoint;
}

QUrl ServiceClient::webSocketUrl() const {
    QUrl url = d->endpoint.baseUrl;
    url.setScheme(url.scheme() == QLatin1String("https") ? QStringLiteral("wss")
                                                         : QStringLiteral("ws"));
    QString path = url.path();
    if (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    url.setPath(path + QStringLiteral("/ws"));
    url.setQuery(QString());
    url.setFragment(QString());
    return url;
}

void ServiceClient::connectToService() {
    d->wanted = true;
    d->retryTimer.stop();
    d->retryDelay = -1;
    d->attempt = 0;
    d->setState(ConnectionState::Connecting);
    d->openSocket();
}

void ServiceClient::disconnectFromService() {
    d->wanted = false;
    d->retryTimer.stop();
    d->retryDelay = -1;
    d->attempt = 0;
    if (d->socket) {
        QWebSocket *s = d->socket;
        d->socket = nullptr;
        disconnect(s, nullptr, this, nullptr);
        d->connectTimer.stop();
        d->heartbeatTimer.stop();
        s->close(QWebSocketProtocol::CloseCodeNormal, QStringLiteral("monitor closed"));
        s->deleteLater();
    }
    d->setState(ConnectionState::Disconnected);
}

ConnectionState ServiceClient::state() const {
    return d->state;
}

int ServiceClient::reconnectAttempt() const {
    return d->state == ConnectionState::Connected ? 0 : d->attempt;
}

qint64 ServiceClient::nextRetryInMs() const {
    if (d->retryDelay < 0 || !d->retryTimer.isActive())
        return -1;
    return std::max<qint64>(0, d->retryDelay - d->retryClock.elapsed());
}

void ServiceClient::setMaxBackoffMs(int ms) {
    d->maxBackoffMs = std::max(1, ms);
}

void ServiceClient::setInitialBackoffMs(int ms) {
    d->initialBackoffMs = std::max(1, ms);
}

void ServiceClient::setHeartbeat(int intervalMs, int timeoutMs) {
    d->heartbeatIntervalMs = std::max(0, intervalMs);
    d->heartbeatTimeoutMs = std::max(0, timeoutMs);
    if (d->heartbeatIntervalMs == 0)
        d->heartbeatTimer.stop();
    else if (d->state == ConnectionState::Connected)
        d->heartbeatTimer.start(d->heartbeatIntervalMs);
}

void ServiceClient::setMaxIncomingMessageSize(qint64 bytes) {
    d->maxMessageBytes = std::max<qint64>(1024, bytes);
    if (d->socket)
        d->socket->setMaxAllowedIncomingMessageSize(quint64(d->maxMessageBytes));
}

void ServiceClient::get(const QString &path, Callback done) {
    d->request(QByteArrayLiteral("GET"), path, QByteArray(), std::move(done));
}

void ServiceClient::post(const QString &path, const QJsonObject &body, Callback done) {
    d->request(QByteArrayLiteral("POST"), path, QJsonDocument(body).toJson(QJsonDocument::Compact),
               std::move(done));
}

void ServiceClient::put(const QString &path, const QJsonObject &body, Callback done) {
    d->request(QByteArrayLiteral("PUT"), path, QJsonDocument(body).toJson(QJsonDocument::Compact),
               std::move(done));
}

void ServiceClient::patch(const QString &path, const QJsonObject &body, Callback done) {
    d->request(QByteArrayLiteral("PATCH"), path, QJsonDocument(body).toJson(QJsonDocument::Compact),
               std::move(done));
}

void ServiceClient::del(const QString &path, Callback done) {
    d->request(QByteArrayLiteral("DELETE"), path, QByteArray(), std::move(done));
}

bool ServiceClient::sendEvent(const QString &type, const QJsonObject &payload) {
    if (!d->socket || d->state != ConnectionState::Connected)
        return false;
    const QJsonObject message{{k::Type, type}, {k::Payload, payload}};
    const qint64 sent = d->socket->sendTextMessage(
        QString::fromUtf8(QJsonDocument(message).toJson(QJsonDocument::Compact)));
    return sent > 0;
}

} // namespace flotilla::client
