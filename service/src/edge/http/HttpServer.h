#pragma once
// The HTTP adapter: the only code that touches QtHttpServer, a technical preview in Qt 6.4 whose
// API changes in later releases, so an upgrade is absorbed here. It owns the routing table
// controllers register into, the auth gate, the JSON error mapping, the connection guard and the
// WebSocket takeover on the same port.

#include "http/ApiTypes.h"
#include "http/Authenticator.h"
#include "http/ConnectionGuard.h"
#include "http/RequestPolicy.h"

#include <QHostAddress>
#include <QObject>
#include <QSslConfiguration>
#include <QStringList>

#include <memory>
#include <optional>

class QTcpSocket;
class QWebSocket;
class QWebSocketServer;

namespace flotilla {

class QtHttpBackend;

struct HttpServerConfig {
    HttpLimits limits;
    QStringList webSocketPaths{QStringLiteral("/ws"), QStringLiteral("/")};
    QStringList allowedOrigins; // --allow-origin: extra Origins (REST and WebSocket), with CORS
    QStringList allowedHosts;   // --allow-host: extra names accepted in Host
    quint64 maxWebSocketMessageBytes = 64 * 1024;
    int webSocketHandshakeTimeoutMs = 10'000;
    // --tls-cert/--tls-key: listen() speaks HTTPS and WSS (QSslSocket per connection).
    std::optional<QSslConfiguration> tls;
};

// Who may call a route: the service token only; anyone; or also an agent's own token, for the
// agent named by the route's :id (routes without :id check the body's agent themselves).
enum class Access { Token, Open, Agent };

class HttpServer final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HttpServer)
public:
    HttpServer(HttpServerConfig config, Authenticator auth, QObject *parent = nullptr);
    ~HttpServer() override;

    // Pattern segments starting with ':' are parameters: "/api/agents/:id".
    void route(Method method, const QString &pattern, Handler handler,
               Access access = Access::Token);
    void routeAsync(Method method, const QString &pattern, AsyncHandler handler,
                    Access access = Access::Token);

    // Lets one route take a body larger than HttpLimits::maxBodyBytes (--max-body-bytes), up to
    // `maxBytes` (the larger of the two applies), for an upload that cannot be split. `path` is
    // literal and matched exactly; every other route keeps the general limit. Call before
    // listen(): each listener copies the limits when it binds.
    void allowLargerBody(Method method, const QString &path, qint64 maxBytes);

    // Binds and listens, with TLS when configured. Returns the port actually bound (useful with
    // port 0).
    Result<quint16> listen(const QHostAddress &address, quint16 port);
    // A second listener without TLS, for agents' callbacks on loopback when listen() uses TLS
    // (their curl would not trust a self-signed certificate). It serves only the routes an
    // agent's token may call (Access::Agent: hooks, report-task, notify, its own GET/PATCH),
    // with the same auth and checks; the page, the WebSocket and the rest of the API answer 404
    // there, so a local program gains nothing by using it instead of the main port.
    Result<quint16> listenForAgents(const QHostAddress &address, quint16 port);
    // Stops accepting new connections; open ones finish.
    void stopListening();
    int openConnections() const;

    // In-process dispatch, without a socket (the REST fuzzer): the same router, auth gate and
    // handlers as a request from the network. `request.authenticated` is taken as given.
    // `done` gets the reply: before this returns for synchronous routes, later (from the event
    // loop) for asynchronous ones such as POST /api/exec.
    void dispatchInProcess(ApiRequest request, const ReplyCallback &done);
    struct RouteInfo {
        Method method;
        QString pattern; // as registered: "/api/agents/:id"
        Access access = Access::Token;
    };
    // Every registered route, in registration order.
    QList<RouteInfo> routes() const;

Q_SIGNALS:
    // An authenticated WebSocket, handshake done. The receiver takes ownership.
    void webSocketAccepted(QWebSocket *socket);

private:
    friend class QtHttpBackend;
    struct Route {
        Method method;
        QStringList segments;
        Access access;
        AsyncHandler handler;
    };

    void dispatch(ApiRequest request, std::function<void(const Reply &, bool headOnly)> send);
    const Route *match(const ApiRequest &request, QList<Method> *allowed,
                       QHash<QString, QString> *params) const;
    std::optional<Rejection> verifyUpgrade(const RequestHead &head) const;
    void acceptUpgrade(QTcpSocket *socket);
    // The CORS answer to a preflight from an origin listed with --allow-origin.
    Reply preflightGrant(const QByteArray &origin) const;

    HttpServerConfig m_config;
    Authenticator m_auth;
    // Shared with every connection's guard; bound (address, port) once listening.
    std::shared_ptr<RequestPolicy> m_policy;
    QList<Route> m_routes;
    QHash<QString, QList<int>> m_exact; // literal patterns -> route indexes
    QList<int> m_parametric;
    QtHttpBackend *m_backend = nullptr;
    QWebSocketServer *m_wsServer = nullptr;
    Result<GuardedTcpServer *> bindListener(const QHostAddress &address, quint16 port,
                                            const QSslConfiguration *tls, bool agentsOnly);
    QList<GuardedTcpServer *> m_listeners;
};

} // namespace flotilla
