// GuardedTcpServer (ConnectionGuard.h): accepts connections, counts them, makes room at the
// limit, and gives each socket its ConnectionGuard.

#include "http/ConnectionGuard.h"

#include "base/Logging.h"
#include "protocol/WireNames.h"

#include <QSslSocket>
#include <QTcpSocket>

namespace flotilla {

namespace {

// Lives as long as the socket it is a child of; holds one unit of the open-connection count.
class OpenCount final : public QObject {
public:
    OpenCount(QObject *socket, std::shared_ptr<int> count)
        : QObject(socket)
        , m_count(std::move(count)) {
        ++*m_count;
    }
    ~OpenCount() override { --*m_count; }
    Q_DISABLE_COPY_MOVE(OpenCount)

private:
    std::shared_ptr<int> m_count;
};

} // namespace

GuardedTcpServer::GuardedTcpServer(const HttpLimits &limits,
                                   std::shared_ptr<const RequestPolicy> policy,
                                   UpgradeVerifier verifier, UpgradeAcceptor acceptor,
                                   const QSslConfiguration *tls, QObject *parent)
    : QTcpServer(parent)
    , m_limits(limits)
    , m_policy(std::move(policy))
    , m_verifier(std::move(verifier))
    , m_acceptor(std::move(acceptor)) {
    if (tls)
        m_tls = *tls;
    setListenBacklogSize(256);
}

void GuardedTcpServer::incomingConnection(qintptr descriptor) {
    QSslSocket *ssl = m_tls ? new QSslSocket(this) : nullptr;
    QTcpSocket *socket = ssl ? ssl : new QTcpSocket(this);
    if (!socket->setSocketDescriptor(descriptor)) {
        delete socket;
        return;
    }
    if (ssl) {
        ssl->setSslConfiguration(*m_tls);
        // A client that fails the handshake (plain HTTP, an untrusted certificate) is closed;
        // the guard sees no byte of it, and its deadline covers a client that never finishes.
        connect(ssl, &QSslSocket::sslErrors, ssl, [ssl](const QList<QSslError> &errors) {
            qCInfo(lcHttp).noquote()
                << "TLS handshake failed from" << ssl->peerAddress().toString()
                << (errors.isEmpty() ? QString() : errors.first().errorString());
        });
        ssl->startServerEncryption();
    }
    // Counted out on the socket's destruction: a WebSocket takes the socket over and outlives the
    // HTTP connection, and it still holds a descriptor. Through a child object, not a `destroyed`
    // connection: Qt 6.4's WebSocket upgrade disconnects every signal of the socket, `destroyed`
    // included, and the count then only grew until the limit refused everyone.
    new OpenCount(socket, m_open);
    if (property(kAgentsOnlyProperty).toBool())
        socket->setProperty(kAgentsOnlyProperty, true);
    bool evicted = false;
    while (*m_open > m_limits.maxConnections && !evicted && !m_unfinished.isEmpty()) {
        const QPointer<ConnectionGuard> &oldest = m_unfinished.constFirst();
        const qint64 pending = oldest ? oldest->pendingHeadMs() : -1;
        if (pending >= 0) {
            if (pending < m_limits.evictUnfinishedAfterMs)
                break;       // later ones are younger still
            oldest->evict(); // m_open drops when its socket is deleted, a moment later
            evicted = true;
        }
        m_unfinished.removeFirst();
    }
    if (*m_open > m_limits.maxConnections && !evicted) {
        qCWarning(lcHttp) << "refusing connection: limit of" << m_limits.maxConnections
                          << "reached";
        ConnectionGuard::reject(
            socket,
            Rejection{503, wire::code::Internal, QStringLiteral("too many open connections"), {}});
        connect(socket, &QAbstractSocket::disconnected, socket, &QObject::deleteLater);
        return;
    }
    // No Nagle: WebSocket events are small writes in quick succession, and Nagle holds each one
    // back until the previous is acknowledged, which the client's delayed ACK can stretch to
    // 40 ms (seen as the streaming benchmark's tail latency); a large HTTP body written after
    // its head would wait the same way.
    socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    // The whole request is buffered by Qt before dispatch; the guard keeps it within limits, and
    // this caps what a single read can pull in regardless. It must hold the largest body a route
    // allows (HttpLimits::largerBodies), or that request would stall with a full buffer.
    socket->setReadBufferSize(m_limits.maxHeaderBytes + m_limits.largestBody() + 64 * 1024);
    auto *guard = new ConnectionGuard(socket, m_limits, m_policy, m_verifier, m_acceptor,
                                      [this](QTcpSocket *s) { addPendingConnection(s); });
    if (m_unfinished.size() >= 2 * m_limits.maxConnections) {
        m_unfinished.removeIf(
            [](const QPointer<ConnectionGuard> &g) { return !g || g->pendingHeadMs() < 0; });
    }
    m_unfinished.append(guard);
}

} // namespace flotilla
