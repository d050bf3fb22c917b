#include "http/HttpServer.h"

#include "base/Logging.h"
#include "protocol/McpNames.h"
#include "protocol/WireNames.h"

#include <QAbstractHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QPointer>
#include <QTcpSocket>
#include <QUrl>
#include <QWebSocket>
#include <QWebSocketServer>

namespace flotilla {

namespace c = wire::code;
using QtStatus = QHttpServerResponder::StatusCode;

// QHttpServer (final, regex routes scanned linearly, 404 for a wrong method) is bypassed: the
// abstract server gives us each parsed request and we route it ourselves.
namespace {
// Bodies this large go to the socket as a second write of the same QByteArray: QIODevice keeps a
// reference to a chunk of at least 4 KiB (QRINGBUFFER_CHUNKSIZE) instead of copying it, so a cached
// body (a 1,000-agent list is ~0.5 MB) is never copied in user space. Smaller ones are appended to
// the head: one write, one chunk.
constexpr qsizetype kSeparateBodyBytes = 16 * 1024;

QString agentListenerOnly() {
    return QStringLiteral("this listener serves agents' own calls only (permission hooks, "
                          "report-task, notify, their own agent); use the service's port");
}

QByteArray serializeResponse(const Reply &reply, bool withBody) {
    QByteArray out;
    out.reserve(160 + (withBody ? reply.body.size() : 0));
    out +=
        "HTTP/1.1 " + QByteArray::number(reply.status) + ' ' + reasonPhrase(reply.status) + "\r\n";
    if (reply.status != 204 && reply.status != 304) { // neither carries a body
        if (!reply.contentType.isEmpty())
            out += "Content-Type: " + reply.contentType + "\r\n";
        out += "Content-Length: " + QByteArray::number(reply.body.size()) + "\r\n";
    }
    // Nothing the API answers may be stored, unless the handler says otherwise (the static site's
    // assets are cacheable). No answer is sniffed into another type or read by another site's
    // page as a no-cors resource (a <script src> of /api/agents): defence in depth behind auth.
    bool ownCacheControl = false, ownNosniff = false, ownCorp = false;
    for (const auto &h : reply.headers) {
        out += h.first + ": " + h.second + "\r\n";
        ownCacheControl =
            ownCacheControl || h.first.compare("cache-control", Qt::CaseInsensitive) == 0;
        ownNosniff =
            ownNosniff || h.first.compare("x-content-type-options", Qt::CaseInsensitive) == 0;
        ownCorp =
            ownCorp || h.first.compare("cross-origin-resource-policy", Qt::CaseInsensitive) == 0;
    }
    if (!ownCacheControl)
        out += "Cache-Control: no-store\r\n";
    if (!ownNosniff)
        out += kNosniffHeader;
    if (!ownCorp)
        out += kCorpHeader;
    out += "\r\n";
    if (withBody)
        out += reply.body;
    return out;
}

void writeResponse(QTcpSocket *socket, const Reply &reply, bool headOnly) {
    if (headOnly || reply.body.size() < kSeparateBodyBytes) {
        socket->write(serializeResponse(reply, !headOnly));
        return;
    }
    socket->write(serializeResponse(reply, false));
    socket->write(reply.body);
}
} // namespace

class QtHttpBackend final : public QAbstractHttpServer {
public:
    explicit QtHttpBackend(HttpServer *owner)
        : QAbstractHttpServer(owner)
        , m_owner(owner) {}

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override {
        ApiRequest r;
        r.method = toMethod(request.method());
        const QUrl url = request.url();
        r.path = url.path(QUrl::FullyDecoded);
        r.query = QUrlQuery(url);
        r.body = request.body();
        r.viaAgentListener = socket->property(kAgentsOnlyProperty).toBool();
        if (r.method == Method::Get || r.method == Method::Head) {
            r.host = request.value(QByteArrayLiteral("host"));
            r.ifNoneMatch = request.value(QByteArrayLiteral("if-none-match"));
            r.acceptEncoding = request.value(QByteArrayLiteral("accept-encoding"));
        }
        const QByteArray token =
            Authenticator::fromHeaders(request.value(QByteArrayLiteral("x-auth-token")),
                                       request.value(QByteArrayLiteral("authorization")));
        const Caller caller = m_owner->m_auth.identify(token);
        r.authenticated = caller.kind == Caller::Kind::Service;
        r.agentScope = caller.agentId;
        if (r.path == wire::mcp::Path) {
            r.callerAgent = caller.kind == Caller::Kind::Agent ? caller.agentId
                                                               : m_owner->m_auth.agentOf(token);
            r.mcpSessionId = request.value(QByteArrayLiteral("mcp-session-id"));
            r.mcpProtocolVersion = request.value(QByteArrayLiteral("mcp-protocol-version"));
        }

        // The guard refused foreign origins already: an Origin here is our own (no CORS needed)
        // or one listed with --allow-origin, which gets the grants a browser needs.
        const QByteArray origin = request.value(QByteArrayLiteral("origin"));
        const bool listed = !origin.isEmpty() && m_owner->m_policy->isListedOrigin(origin);
        QPointer<QTcpSocket> alive(socket);
        if (listed && r.method == Method::Options &&
            !request.value(QByteArrayLiteral("access-control-request-method")).isEmpty()) {
            writeResponse(socket, m_owner->preflightGrant(origin), false);
            return true;
        }

        // Handlers may answer later (exec waits for its command). The reply callback writes only
        // if the client is still there: what QFuture handlers get wrong in 6.4 (QTBUG-105202).
        // The response goes out in one write (two for large bodies, see writeResponse);
        // QHttpServerResponder would issue ~20 small ones.
        // Qt 6.4 ignores "Connection: close" and would keep the connection open: honour it.
        bool close = false;
        for (const QByteArray &option : request.value(QByteArrayLiteral("connection")).split(','))
            close = close || option.trimmed().compare("close", Qt::CaseInsensitive) == 0;
        m_owner->dispatch(std::move(r), [alive, listed, origin, close](const Reply &reply,
                                                                       bool headOnly) {
            if (!alive || alive->state() != QAbstractSocket::ConnectedState)
                return;
            if (!listed) {
                writeResponse(alive, reply, headOnly);
            } else {
                Reply granted = reply;
                granted.headers.append({QByteArrayLiteral("Access-Control-Allow-Origin"), origin});
                granted.headers.append({QByteArrayLiteral("Vary"), QByteArrayLiteral("Origin")});
                writeResponse(alive, granted, headOnly);
            }
            if (close)
                alive->disconnectFromHost(); // after what is queued has been written
        });
        return true;
    }

    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override {
        // Unreachable: handleRequest takes everything. Answer anyway rather than hang a client.
        makeResponder(request, socket)
            .write(errorBody(c::RouteNotFound, QStringLiteral("no such route")),
                   QByteArrayLiteral("application/json"), QtStatus::NotFound);
    }

private:
    static Method toMethod(QHttpServerRequest::Method m) {
        switch (m) {
        case QHttpServerRequest::Method::Get:
            return Method::Get;
        case QHttpServerRequest::Method::Head:
            return Method::Head;
        case QHttpServerRequest::Method::Post:
            return Method::Post;
        case QHttpServerRequest::Method::Put:
            return Method::Put;
        case QHttpServerRequest::Method::Patch:
            return Method::Patch;
        case QHttpServerRequest::Method::Delete:
            return Method::Delete;
        case QHttpServerRequest::Method::Options:
            return Method::Options;
        default:
            return Method::Other;
        }
    }

    HttpServer *m_owner;
};

HttpServer::HttpServer(HttpServerConfig config, Authenticator auth, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_auth(std::move(auth))
    , m_policy(std::make_shared<RequestPolicy>(RequestPolicyConfig{
          m_config.allowedHosts, m_config.allowedOrigins, m_config.tls.has_value()})) {
    m_backend = new QtHttpBackend(this);
    m_wsServer =
        new QWebSocketServer(QStringLiteral("flotillad"), QWebSocketServer::NonSecureMode, this);
    m_wsServer->setHandshakeTimeout(m_config.webSocketHandshakeTimeoutMs);
    if (m_auth.required()) // browsers fail the handshake unless the offered subprotocol comes back
        m_wsServer->setSupportedSubprotocols({QString::fromUtf8(m_auth.subprotocol())});
    connect(m_wsServer, &QWebSocketServer::newConnection, this, [this] {
        while (m_wsServer->hasPendingConnections()) {
            QWebSocket *ws = m_wsServer->nextPendingConnection();
            ws->setMaxAllowedIncomingMessageSize(m_config.maxWebSocketMessageBytes);
            ws->setMaxAllowedIncomingFrameSize(m_config.maxWebSocketMessageBytes);
            ws->setParent(nullptr);
            Q_EMIT webSocketAccepted(ws);
        }
    });
}

HttpServer::~HttpServer() = default;

void HttpServer::route(Method method, const QString &pattern, Handler handler, Access access) {
    routeAsync(
        method, pattern,
        [h = std::move(handler)](const ApiRequest &r, const ReplyCallback &done) { done(h(r)); },
        access);
}

void HttpServer::routeAsync(Method method, const QString &pattern, AsyncHandler handler,
                            Access access) {
    Route r{method, pattern.split(QLatin1Char('/')), access, std::move(handler)};
    const bool parametric = pattern.contains(QLatin1Char(':'));
    m_routes.append(std::move(r));
    if (parametric)
        m_parametric.append(int(m_routes.size() - 1));
    else
        m_exact[pattern].append(int(m_routes.size() - 1));
}

void HttpServer::allowLargerBody(Method method, const QString &path, qint64 maxBytes) {
    const QLatin1String name = methodName(method);
    m_config.limits.largerBodies.append(
        BodyAllowance{QByteArray(name.data(), name.size()), path.toUtf8(), maxBytes});
    if (m_auth.required() && !m_config.limits.fullRights) {
        m_config.limits.fullRights = [auth = m_auth](QByteArrayView xAuthToken,
                                                     QByteArrayView authorization) {
            return auth.identify(Authenticator::fromHeaders(xAuthToken.toByteArray(),
                                                            authorization.toByteArray()))
                       .kind == Caller::Kind::Service;
        };
    }
}

void HttpServer::dispatchInProcess(ApiRequest request, const ReplyCallback &done) {
    dispatch(std::move(request), [done](const Reply &reply, bool) { done(reply); });
}

QList<HttpServer::RouteInfo> HttpServer::routes() const {
    QList<RouteInfo> out;
    out.reserve(m_routes.size());
    for (const Route &r : m_routes)
        out.append({r.method, r.segments.join(QLatin1Char('/')), r.access});
    return out;
}

const HttpServer::Route *HttpServer::match(const ApiRequest &request, QList<Method> *allowed,
                                           QHash<QString, QString> *params) const {
    const Method wanted = request.method == Method::Head ? Method::Get : request.method;
    // Literal paths win over parameters: /api/agents/status is never the agent "status".
    auto exact = m_exact.constFind(request.path);
    if (exact != m_exact.constEnd()) {
        for (int i : *exact) {
            allowed->append(m_routes[i].method);
            if (m_routes[i].method == wanted)
                return &m_routes[i];
        }
        return nullptr;
    }
    const QStringList segments = request.path.split(QLatin1Char('/'));
    const Route *found = nullptr;
    for (int i : m_parametric) {
        const Route &r = m_routes[i];
        if (r.segments.size() != segments.size())
            continue;
        QHash<QString, QString> captured;
        bool ok = true;
        for (qsizetype s = 0; s < segments.size() && ok; ++s) {
            const QString &p = r.segments[s];
            if (p.startsWith(QLatin1Char(':')))
                ok = !segments[s].isEmpty() && (captured.insert(p.mid(1), segments[s]), true);
            else
                ok = p == segments[s];
        }
        if (!ok)
            continue;
        allowed->append(r.method);
        if (!found && r.method == wanted) {
            found = &r;
            *params = captured;
        }
    }
    return found;
}

void HttpServer::dispatch(ApiRequest request, std::function<void(const Reply &, bool)> send) {
    const bool headOnly = request.method == Method::Head;
    QList<Method> allowed;
    QHash<QString, QString> params;
    const Route *route = match(request, &allowed, &params);
    const bool open = route && route->access == Access::Open;
    auto refuse = [&](const Reply &r) { send(r, headOnly); };
    if (request.viaAgentListener && !(route && route->access == Access::Agent)) {
        qCInfo(lcHttp).noquote() << "agents' listener refused" << methodName(request.method)
                                 << request.path;
        return refuse(Error::notFound(c::RouteNotFound, agentListenerOnly()));
    }
    if (!request.authenticated && !open && !request.agentScope.isEmpty()) {
        // An agent's own token: only routes agents need, and only for itself.
        const bool agentRoute = route && route->access == Access::Agent;
        const auto id = params.constFind(QStringLiteral("id"));
        if (!agentRoute || (id != params.constEnd() && *id != request.agentScope)) {
            qCInfo(lcHttp).noquote() << "refused agent" << request.agentScope
                                     << methodName(request.method) << request.path;
            return refuse(Error::forbidden(
                c::Forbidden, QStringLiteral("an agent's token may not %1 %2: agents act only "
                                             "on themselves (report-task, notify, own PATCH)")
                                  .arg(methodName(request.method), request.path)));
        }
    } else if (!request.authenticated && !open) {
        // Fail closed, and before revealing whether the route exists.
        Reply r = Error{ErrorKind::Unauthorized, c::Unauthorized,
                        QStringLiteral("missing or invalid X-Auth-Token")};
        r.headers.append({QByteArrayLiteral("WWW-Authenticate"),
                          QByteArrayLiteral("Bearer realm=\"flotilla\"")});
        return refuse(r);
    }
    if (!route && allowed.isEmpty()) {
        return refuse(Error::notFound(
            c::RouteNotFound,
            QStringLiteral("no route %1 %2").arg(methodName(request.method), request.path)));
    }
    if (!route) {
        QByteArrayList names;
        for (Method m : allowed)
            names.append(QByteArray(methodName(m).data(), methodName(m).size()));
        if (allowed.contains(Method::Get))
            names.append(QByteArrayLiteral("HEAD"));
        Reply r = Error{ErrorKind::MethodNotAllowed, c::MethodNotAllowed,
                        QStringLiteral("%1 is not allowed on %2")
                            .arg(methodName(request.method), request.path)};
        r.headers.append({QByteArrayLiteral("Allow"), names.join(", ")});
        return refuse(r);
    }
    request.params = std::move(params);
    qCDebug(lcHttp).noquote() << methodName(request.method) << request.path;
    route->handler(request,
                   [send = std::move(send), headOnly](const Reply &r) { send(r, headOnly); });
}

std::optional<Rejection> HttpServer::verifyUpgrade(const RequestHead &head) const {
    const QUrl url(QString::fromUtf8(head.target));
    if (!m_config.webSocketPaths.contains(url.path())) {
        return Rejection{404,
                         c::RouteNotFound,
                         QStringLiteral("WebSocket upgrades are accepted only at %1")
                             .arg(m_config.webSocketPaths.join(QStringLiteral(" and "))),
                         {}};
    }
    QByteArray candidate =
        Authenticator::fromHeaders(head.header("x-auth-token"), head.header("authorization"));
    if (candidate.isEmpty())
        candidate =
            QUrlQuery(url).queryItemValue(QStringLiteral("token"), QUrl::FullyDecoded).toUtf8();
    if (candidate.isEmpty()) {
        const QList<QByteArray> offered = head.header("sec-websocket-protocol").split(',');
        for (const QByteArray &p : offered) {
            if (p.trimmed().startsWith("auth-"))
                candidate = p.trimmed().mid(5);
        }
    }
    // The service token only: an agent's own token never opens the event channel (it could
    // answer permission requests there). Host and Origin were checked before (RequestPolicy).
    if (!m_auth.accepts(candidate))
        return Rejection{401, c::Unauthorized, QStringLiteral("missing or invalid token"), {}};
    return std::nullopt;
}

Reply HttpServer::preflightGrant(const QByteArray &origin) const {
    Reply r = Reply::noContent();
    r.headers = {
        {QByteArrayLiteral("Access-Control-Allow-Origin"), origin},
        {QByteArrayLiteral("Access-Control-Allow-Methods"),
         QByteArrayLiteral("GET, HEAD, POST, PUT, PATCH, DELETE")},
        {QByteArrayLiteral("Access-Control-Allow-Headers"),
         QByteArrayLiteral("Content-Type, X-Auth-Token, Authorization")},
        {QByteArrayLiteral("Access-Control-Max-Age"), QByteArrayLiteral("600")},
        {QByteArrayLiteral("Vary"), QByteArrayLiteral("Origin")},
    };
    return r;
}

void HttpServer::acceptUpgrade(QTcpSocket *socket) {
    m_wsServer->handleConnection(socket);
    // The handshake bytes are already buffered; QWebSocketServer reads on readyRead.
    Q_EMIT socket->readyRead();
}

Result<GuardedTcpServer *> HttpServer::bindListener(const QHostAddress &address, quint16 port,
                                                    const QSslConfiguration *tls, bool agentsOnly) {
    UpgradeVerifier verifier = [this](const RequestHead &h) { return verifyUpgrade(h); };
    if (agentsOnly)
        verifier = [](const RequestHead &) -> std::optional<Rejection> {
            return Rejection{404, c::RouteNotFound, agentListenerOnly(), {}};
        };
    auto *tcp = new GuardedTcpServer(
        m_config.limits, m_policy, std::move(verifier), [this](QTcpSocket *s) { acceptUpgrade(s); },
        tls, this);
    if (agentsOnly)
        tcp->setProperty(kAgentsOnlyProperty, true);
    if (!tcp->listen(address, port)) {
        const QString why = tcp->errorString();
        delete tcp;
        return Error::internal(c::Internal, QStringLiteral("cannot listen on %1:%2: %3")
                                                .arg(address.toString())
                                                .arg(port)
                                                .arg(why));
    }
    m_listeners.append(tcp);
    m_backend->bind(tcp);
    return tcp;
}

Result<quint16> HttpServer::listen(const QHostAddress &address, quint16 port) {
    auto tcp = bindListener(address, port, m_config.tls ? &*m_config.tls : nullptr, false);
    if (!tcp)
        return tcp.error();
    m_policy->bind(address, (*tcp)->serverPort());
    return (*tcp)->serverPort();
}

Result<quint16> HttpServer::listenForAgents(const QHostAddress &address, quint16 port) {
    auto tcp = bindListener(address, port, nullptr, true);
    if (!tcp)
        return tcp.error();
    return (*tcp)->serverPort();
}

void HttpServer::stopListening() {
    for (GuardedTcpServer *tcp : std::as_const(m_listeners))
        tcp->close();
}

int HttpServer::openConnections() const {
    int n = 0;
    for (const GuardedTcpServer *tcp : m_listeners)
        n += tcp->openConnections();
    return n;
}

} // namespace flotilla
