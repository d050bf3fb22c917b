#pragma once
// Limits and timeouts Qt 6.4.2's HTTP server lacks (reference/qt-6.4-httpserver.md §3-4).
//
// GuardedTcpServer hands QAbstractHttpServer sockets that carry a ConnectionGuard. The guard's
// readyRead slot is connected before Qt's, so it sees every byte first (peek, never read) and
// frames requests itself: request line, headers, Content-Length or chunked body. It answers,
// without Qt ever buffering the request: 400 malformed, 413 body too large, 414, 431 too many
// or too large headers (Qt would silently drop them all), 408 slow clients, 100-continue, and
// what RequestPolicy refuses (foreign Host or Origin: 403, a body that is not JSON: 415).
// WebSocket upgrades are detected here too and handed to the upgrade callbacks before Qt's
// parser sees them.

#include "http/Rejection.h"
#include "http/RequestHeadParser.h"
#include "http/RequestPolicy.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPair>
#include <QPointer>
#include <QSslConfiguration>
#include <QString>
#include <QTcpServer>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

class QTcpSocket;

namespace flotilla {

// A dynamic property of a GuardedTcpServer that serves agents only (HttpServer::listenForAgents);
// it passes it on to every socket it accepts.
inline constexpr char kAgentsOnlyProperty[] = "flotillaAgentsOnly";

// A route that takes a larger body than HttpLimits::maxBodyBytes, declared by its controller
// through HttpServer::allowLargerBody (an upload that cannot be split). Matched on the method and
// the exact path of the request target (before any query), from the head alone.
struct BodyAllowance {
    QByteArray method; // "POST"
    QByteArray path;   // "/api/custom-3d-models"
    qint64 maxBytes = 0;
};

struct HttpLimits {
    qint64 maxBodyBytes = 1 << 20;  // 1 MiB
    int maxHeaderBytes = 32 * 1024; // request line + header fields
    int maxHeaderCount = 64;        // Qt 6.4 drops *all* headers above 100
    int maxTargetBytes = 8 * 1024;
    int headerTimeoutMs = 10'000; // from the first byte of a request to the end of its headers
    int bodyTimeoutMs = 60'000;   // from the end of the headers to the end of the body
    int idleTimeoutMs = 60'000;   // keep-alive connection with no request in flight
    int maxConnections = 1000;    // concurrent HTTP + WebSocket connections
    // At the limit, a connection that has not sent a whole request head in this long may be
    // closed to make room for a new one.
    int evictUnfinishedAfterMs = 2000;
    QList<BodyAllowance> largerBodies; // the few routes allowed more than maxBodyBytes
    // Whether a head's credential (its X-Auth-Token and Authorization values) has the service's
    // full rights. A larger allowance applies only then: a client without the token cannot make
    // the service buffer more than maxBodyBytes. Unset: no credential is required (no token).
    std::function<bool(QByteArrayView xAuthToken, QByteArrayView authorization)> fullRights;

    // The body limit of one request: its route's allowance when that is larger, else
    // maxBodyBytes. `path` is the target without its query.
    qint64 bodyLimitFor(QByteArrayView method, QByteArrayView path) const;
    // The largest body any request may carry (what a socket's read buffer must hold).
    qint64 largestBody() const;
};

struct RequestHead {
    QByteArray method;
    QByteArray target;
    QByteArray version;
    QList<QPair<QByteArray, QByteArray>> headers; // names lower-cased
    QByteArray header(const QByteArray &lowerName) const;
    QByteArray path() const;
};

// Decides on a WebSocket upgrade: nullopt accepts, a Rejection refuses before any handshake.
using UpgradeVerifier = std::function<std::optional<Rejection>(const RequestHead &)>;
// Receives an accepted upgrade's socket (parentless, Qt's HTTP slots disconnected, the handshake
// bytes still unread in its buffer).
using UpgradeAcceptor = std::function<void(QTcpSocket *)>;
// Gives a connection to Qt's HTTP server (QTcpServer::addPendingConnection).
using HttpHandover = std::function<void(QTcpSocket *)>;

class ConnectionGuard final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConnectionGuard)
public:
    ConnectionGuard(QTcpSocket *socket, const HttpLimits &limits,
                    std::shared_ptr<const RequestPolicy> policy, UpgradeVerifier verifier,
                    UpgradeAcceptor acceptor, HttpHandover handover);

    // Writes a JSON error response straight to the socket, stops Qt from reading it, and closes
    // gracefully (half-close, then drain what the client still sends for a moment).
    static void reject(QTcpSocket *socket, const Rejection &r);

    // How long the client has been sending a request head without finishing it (silent since
    // it connected, or trickling its head); -1 when no head is pending (a request is in its
    // body or being answered, the connection waits between requests, or it is closed).
    qint64 pendingHeadMs() const;
    // Closes a connection whose head is pending to make room for a new one (no request of it
    // has reached a handler).
    void evict();

private:
    enum class State { Idle, Headers, Body, ChunkSize, ChunkData, ChunkDataEnd, Trailers, Done };

    void onReadyRead();
    void feed(const QByteArray &data);
    bool onHeadersComplete();                // false when the request was rejected or handed over
    void upgrade(const ParsedHead &parsed);  // a WebSocket handshake: verified, then handed over
    bool expectBody(const ParsedHead &head); // 100-continue, Qt takes over, the body's framing
    void onRequestComplete();
    void onTimeout();
    void fail(int status, QLatin1String code, const QString &message);
    void refuse(const Rejection &r);
    void armIdleTimer();

    QTcpSocket *m_socket;
    HttpLimits m_limits;
    std::shared_ptr<const RequestPolicy> m_policy;
    UpgradeVerifier m_verifier;
    UpgradeAcceptor m_acceptor;
    HttpHandover m_handover;
    // A connection reaches Qt's HTTP server only once its first request is known to be plain
    // HTTP: a WebSocket connection never gets Qt's per-connection state (which it would leak).
    bool m_handedToQt = false;
    qint64 m_seenUnread = 0; // bytes already fed that are still unread in the socket buffer
    State m_state = State::Idle;
    bool m_silent = true;        // nothing received yet
    QElapsedTimer m_headStarted; // since accept, then since the first byte of each head
    QByteArray m_headerBuf;
    QByteArray m_lineBuf; // chunk-size and trailer lines
    qint64 m_remaining = 0;
    qint64 m_bodySeen = 0;
    qint64 m_bodyLimit = 0; // of the request in flight (HttpLimits::bodyLimitFor)
    int m_trailerBytes = 0;
    QTimer m_deadline;
};

class GuardedTcpServer final : public QTcpServer {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GuardedTcpServer)
public:
    // With `tls`, every connection is a QSslSocket that starts the server handshake at once; the
    // guard's header deadline covers the handshake too, and it reads only decrypted bytes.
    GuardedTcpServer(const HttpLimits &limits, std::shared_ptr<const RequestPolicy> policy,
                     UpgradeVerifier verifier, UpgradeAcceptor acceptor,
                     const QSslConfiguration *tls = nullptr, QObject *parent = nullptr);
    // Connections accepted and not yet closed (HTTP and WebSocket).
    int openConnections() const { return *m_open; }

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    HttpLimits m_limits;
    std::shared_ptr<const RequestPolicy> m_policy;
    UpgradeVerifier m_verifier;
    UpgradeAcceptor m_acceptor;
    std::optional<QSslConfiguration> m_tls;
    std::shared_ptr<int> m_open = std::make_shared<int>(0); // shared with each socket's counter
    // Connections in accept order, oldest first (entries go stale once a head is complete or
    // they close). At the limit, the oldest one whose head has been pending for
    // HttpLimits::evictUnfinishedAfterMs
    // makes room for the newcomer, so a client hoarding connections, silent or trickling a
    // byte at a time, cannot lock everyone else out until the header timeout (a real client
    // sends its whole head right after connecting).
    QList<QPointer<ConnectionGuard>> m_unfinished;
};

} // namespace flotilla
