#include "http/ConnectionGuard.h"

#include "base/Logging.h"
#include "http/ApiTypes.h"
#include "protocol/WireNames.h"

#include <QSslSocket>
#include <QTcpSocket>

#include <sys/socket.h>

namespace flotilla {

namespace c = wire::code;

namespace {

constexpr int kLingerMs = 2000;

constexpr int kMaxChunkLine = 256;
constexpr int kMaxTrailerBytes = 8 * 1024;

} // namespace

qint64 HttpLimits::bodyLimitFor(QByteArrayView method, QByteArrayView path) const {
    qint64 limit = maxBodyBytes;
    for (const BodyAllowance &a : largerBodies) {
        if (QByteArrayView(a.method) == method && QByteArrayView(a.path) == path)
            limit = qMax(limit, a.maxBytes);
    }
    return limit;
}

qint64 HttpLimits::largestBody() const {
    qint64 largest = maxBodyBytes;
    for (const BodyAllowance &a : largerBodies)
        largest = qMax(largest, a.maxBytes);
    return largest;
}

QByteArray RequestHead::header(const QByteArray &lowerName) const {
    QByteArray joined;
    for (const auto &h : headers) {
        if (h.first == lowerName) {
            if (!joined.isEmpty())
                joined += ", ";
            joined += h.second;
        }
    }
    return joined;
}

QByteArray RequestHead::path() const {
    const qsizetype q = target.indexOf('?');
    return q < 0 ? target : target.left(q);
}

ConnectionGuard::ConnectionGuard(QTcpSocket *socket, const HttpLimits &limits,
                                 std::shared_ptr<const RequestPolicy> policy,
                                 UpgradeVerifier verifier, UpgradeAcceptor acceptor,
                                 HttpHandover handover)
    : QObject(socket)
    , m_socket(socket)
    , m_limits(limits)
    , m_policy(std::move(policy))
    , m_verifier(std::move(verifier))
    , m_acceptor(std::move(acceptor))
    , m_handover(std::move(handover)) {
    m_headStarted.start();
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this, &ConnectionGuard::onTimeout);
    connect(m_socket, &QIODevice::readyRead, this, &ConnectionGuard::onReadyRead);
    // A response fully flushed with nothing in flight starts the keep-alive idle clock.
    connect(m_socket, &QIODevice::bytesWritten, this, [this] {
        if (m_state == State::Idle && m_socket->bytesToWrite() == 0)
            armIdleTimer();
    });
    m_deadline.start(m_limits.headerTimeoutMs);
    // Until Qt's HTTP server (or the WebSocket server) owns the socket, closing it is ours to
    // clean.
    connect(m_socket, &QAbstractSocket::disconnected, this, [this] {
        if (!m_handedToQt)
            m_socket->deleteLater();
    });
}

void ConnectionGuard::armIdleTimer() {
    m_deadline.start(m_limits.idleTimeoutMs);
}

void ConnectionGuard::onReadyRead() {
    if (m_state == State::Done)
        return;
    // Once Qt has the connection, its slot (connected after this one) reads everything available,
    // inside its transaction, right after us: what is unread now is exactly what arrived since our
    // last look. Before that nobody reads, so the bytes already fed are skipped.
    const bool qtReadsAfterUs = m_handedToQt;
    const qint64 available = m_socket->bytesAvailable();
    if (available > 0)
        m_silent = false;
    if (available > m_seenUnread)
        feed(m_socket->peek(available).mid(m_seenUnread));
    m_seenUnread = qtReadsAfterUs ? 0 : qMax(m_seenUnread, available);
}

void ConnectionGuard::feed(const QByteArray &data) {
    qsizetype i = 0;
    const qsizetype n = data.size();
    while (i < n && m_state != State::Done) {
        switch (m_state) {
        case State::Idle:
            if (data[i] == '\r' || data[i] == '\n') { // tolerated between requests (RFC 9112 §2.2)
                ++i;
                break;
            }
            m_state = State::Headers;
            if (m_handedToQt)
                m_headStarted.restart(); // a later request's head; the first counts from accept
            m_headerBuf.clear();
            m_deadline.start(m_limits.headerTimeoutMs);
            break;
        case State::Headers: {
            const qsizetype oldSize = m_headerBuf.size();
            m_headerBuf.append(data.constData() + i, n - i);
            // Find the blank line that ends the head: "\n\n" or "\n\r\n".
            qsizetype end = -1;
            for (qsizetype p = qMax<qsizetype>(0, oldSize - 2); p < m_headerBuf.size(); ++p) {
                if (m_headerBuf[p] != '\n')
                    continue;
                if (p + 1 < m_headerBuf.size() && m_headerBuf[p + 1] == '\n') {
                    end = p + 2;
                    break;
                }
                if (p + 2 < m_headerBuf.size() && m_headerBuf[p + 1] == '\r' &&
                    m_headerBuf[p + 2] == '\n') {
                    end = p + 3;
                    break;
                }
            }
            if (end < 0) {
                if (m_headerBuf.size() > m_limits.maxHeaderBytes)
                    return fail(431, c::HeadersTooLarge,
                                QStringLiteral("request headers exceed %1 bytes")
                                    .arg(m_limits.maxHeaderBytes));
                i = n;
                break;
            }
            i += end - oldSize;
            m_headerBuf.truncate(end);
            if (m_headerBuf.size() > m_limits.maxHeaderBytes)
                return fail(
                    431, c::HeadersTooLarge,
                    QStringLiteral("request headers exceed %1 bytes").arg(m_limits.maxHeaderBytes));
            if (!onHeadersComplete())
                return;
            break;
        }
        case State::Body: {
            const qint64 take = qMin<qint64>(m_remaining, n - i);
            m_remaining -= take;
            i += take;
            if (m_remaining == 0)
                onRequestComplete();
            break;
        }
        case State::ChunkSize:
        case State::Trailers: {
            const char ch = data[i++];
            if (m_state == State::Trailers && ++m_trailerBytes > kMaxTrailerBytes)
                return fail(431, c::HeadersTooLarge, QStringLiteral("chunked trailers too large"));
            if (ch != '\n') {
                if (m_lineBuf.size() >= kMaxChunkLine && m_state == State::ChunkSize)
                    return fail(400, c::BadRequest, QStringLiteral("chunk size line too long"));
                m_lineBuf.append(ch);
                break;
            }
            QByteArray line = m_lineBuf;
            m_lineBuf.clear();
            if (line.endsWith('\r'))
                line.chop(1);
            if (m_state == State::Trailers) {
                if (line.isEmpty())
                    onRequestComplete();
                break;
            }
            const qsizetype semi = line.indexOf(';');
            bool ok = false;
            const QByteArray hex = (semi < 0 ? line : line.left(semi)).trimmed();
            const qint64 size = hex.size() <= 15 ? hex.toLongLong(&ok, 16) : -1;
            if (!ok || size < 0)
                return fail(400, c::BadRequest, QStringLiteral("malformed chunk size"));
            if (size == 0) {
                m_state = State::Trailers;
                m_trailerBytes = 0;
                break;
            }
            m_bodySeen += size;
            if (m_bodySeen > m_bodyLimit)
                return fail(413, c::PayloadTooLarge,
                            QStringLiteral("request body exceeds %1 bytes").arg(m_bodyLimit));
            m_remaining = size;
            m_state = State::ChunkData;
            break;
        }
        case State::ChunkData: {
            const qint64 take = qMin<qint64>(m_remaining, n - i);
            m_remaining -= take;
            i += take;
            if (m_remaining == 0)
                m_state = State::ChunkDataEnd;
            break;
        }
        case State::ChunkDataEnd:
            if (data[i] == '\n')
                m_state = State::ChunkSize;
            else if (data[i] != '\r')
                return fail(400, c::BadRequest, QStringLiteral("chunk data not followed by CRLF"));
            ++i;
            break;
        case State::Done:
            return;
        }
    }
}

bool ConnectionGuard::onHeadersComplete() {
    auto parsed =
        parseRequestHead(m_headerBuf, HeadLimits{m_limits.maxTargetBytes, m_limits.maxHeaderCount});
    if (auto *refusal = std::get_if<Rejection>(&parsed)) {
        refuse(*refusal);
        return false;
    }
    ParsedHead &head = std::get<ParsedHead>(parsed);
    // Foreign Host or Origin: before the WebSocket handshake, routing and auth (RequestPolicy.h).
    PolicyFields fields{head.host, head.origin, head.fetchSite, head.contentType, false};
    if (auto refusal = m_policy->checkSource(fields)) {
        refuse(*refusal);
        return false;
    }
    if (head.asksUpgrade()) {
        upgrade(head);
        return false;
    }
    const qsizetype query = head.target.indexOf('?');
    m_bodyLimit =
        m_limits.bodyLimitFor(head.method, query < 0 ? head.target : head.target.first(query));
    if (m_bodyLimit > m_limits.maxBodyBytes && m_limits.fullRights) {
        QByteArrayView xAuthToken, authorization;
        for (const HeaderView &h : head.headers) {
            if (h.name.compare("x-auth-token", Qt::CaseInsensitive) == 0)
                xAuthToken = h.value;
            else if (h.name.compare("authorization", Qt::CaseInsensitive) == 0)
                authorization = h.value;
        }
        if (!m_limits.fullRights(xAuthToken, authorization))
            m_bodyLimit = m_limits.maxBodyBytes; // the larger allowance is the token's only
    }
    if (auto refusal = frameBody(head, m_bodyLimit)) {
        refuse(*refusal);
        return false;
    }
    fields.hasBody = head.chunked || head.bodyLength > 0;
    if (auto refusal = m_policy->checkBody(fields)) { // before any byte of the body is parsed
        refuse(*refusal);
        return false;
    }
    return expectBody(head);
}

void ConnectionGuard::upgrade(const ParsedHead &parsed) {
    if (parsed.upgrade.compare("websocket", Qt::CaseInsensitive) != 0 || parsed.method != "GET")
        return fail(400, c::BadRequest,
                    QStringLiteral("only GET upgrades to websocket are supported"));
    RequestHead head; // the rare path: materialise the head for the verifier
    head.method = parsed.method.toByteArray();
    head.target = parsed.target.toByteArray();
    head.version = parsed.version.toByteArray();
    for (const HeaderView &h : parsed.headers)
        head.headers.append({h.name.toByteArray().toLower(), h.value.toByteArray()});
    if (auto refusal = m_verifier(head)) {
        m_state = State::Done;
        m_deadline.stop();
        reject(m_socket, *refusal);
        return;
    }
    // Take the socket away from Qt's HTTP server before its parser sees these bytes.
    m_state = State::Done;
    m_deadline.stop();
    QObject::disconnect(m_socket, &QIODevice::readyRead, nullptr, nullptr);
    QObject::disconnect(m_socket, &QAbstractSocket::disconnected, nullptr, nullptr);
    if (m_socket->isTransactionStarted()) // an upgrade after plain requests: Qt read some
        m_socket->rollbackTransaction();
    m_socket->setReadBufferSize(0);
    QTcpSocket *socket = m_socket;
    socket->setParent(nullptr);
    deleteLater();
    m_acceptor(socket);
}

bool ConnectionGuard::expectBody(const ParsedHead &head) {
    const QByteArrayView expect = head.expect;
    const bool chunked = head.chunked;
    const qint64 bodyLength = head.bodyLength;
    if (!expect.isEmpty()) {
        if (expect.compare("100-continue", Qt::CaseInsensitive) != 0) {
            fail(417, c::BadRequest, QStringLiteral("unsupported expectation"));
            return false;
        }
        // Qt 6.4 never answers this; curl would stall a second before sending the body.
        if (chunked || bodyLength > 0)
            m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
    }

    if (!m_handedToQt) {
        // Plain HTTP: from now on Qt parses this connection. It connects its slots now; a queued
        // readyRead makes it read what is already buffered (this guard skips it: seen).
        m_handedToQt = true;
        m_handover(m_socket);
        QMetaObject::invokeMethod(m_socket, &QIODevice::readyRead, Qt::QueuedConnection);
    }

    m_bodySeen = 0;
    if (chunked) {
        m_state = State::ChunkSize;
        m_lineBuf.clear();
        m_deadline.start(m_limits.bodyTimeoutMs);
    } else if (bodyLength > 0) {
        m_state = State::Body;
        m_remaining = bodyLength;
        m_deadline.start(m_limits.bodyTimeoutMs);
    } else {
        onRequestComplete();
    }
    return true;
}

void ConnectionGuard::onRequestComplete() {
    m_state = State::Idle;
    // The handler may take a while (exec waits for its command): no clock runs until the
    // response is flushed (see bytesWritten in the constructor).
    m_deadline.stop();
}

qint64 ConnectionGuard::pendingHeadMs() const {
    const bool pending = m_state == State::Headers || (m_state == State::Idle && m_silent);
    return pending ? m_headStarted.elapsed() : -1;
}

void ConnectionGuard::evict() {
    qCInfo(lcHttp).noquote() << "connection limit reached: closing a connection from"
                             << m_socket->peerAddress().toString()
                             << (m_silent ? "that sent nothing" : "that has not finished its head");
    m_state = State::Done;
    m_silent = false;
    m_deadline.stop();
    m_socket->abort();
    m_socket->deleteLater();
}

void ConnectionGuard::onTimeout() {
    if (m_state == State::Idle) {
        qCDebug(lcHttp) << "closing idle keep-alive connection";
        m_state = State::Done;
        m_socket->disconnectFromHost();
        return;
    }
    fail(408, c::Timeout,
         m_state == State::Headers ? QStringLiteral("request headers not received in time")
                                   : QStringLiteral("request body not received in time"));
}

void ConnectionGuard::fail(int status, QLatin1String code, const QString &message) {
    refuse(Rejection{status, code, message, {}});
}

void ConnectionGuard::refuse(const Rejection &r) {
    qCInfo(lcHttp).noquote() << "refused request from" << m_socket->peerAddress().toString()
                             << r.status << r.message;
    m_state = State::Done;
    m_deadline.stop();
    reject(m_socket, r);
}

void ConnectionGuard::reject(QTcpSocket *socket, const Rejection &r) {
    // Qt's HTTP server must not parse this request any further.
    QObject::disconnect(socket, &QIODevice::readyRead, nullptr, nullptr);
    const QByteArray body = errorBody(r.code, r.message);
    QByteArray out =
        "HTTP/1.1 " + QByteArray::number(r.status) + ' ' + reasonPhrase(r.status) + "\r\n";
    out += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\n" + kNosniffHeader + kCorpHeader + "Cache-Control: no-store\r\n";
    for (const auto &h : r.headers)
        out += h.first + ": " + h.second + "\r\n";
    out += "Connection: close\r\n\r\n" + body;
    socket->write(out);

    if (qobject_cast<QSslSocket *>(socket)) {
        // TLS: a raw half-close would cut the encrypted stream; close once all is written.
        socket->disconnectFromHost();
        QTimer::singleShot(kLingerMs, socket, [socket] { socket->abort(); });
        return;
    }
    // Half-close once flushed, and keep draining: closing with unread input makes the kernel
    // send RST, and the client could lose the response it has not read yet.
    auto halfClose = [socket] {
        if (socket->bytesToWrite() == 0 && socket->state() == QAbstractSocket::ConnectedState)
            ::shutdown(int(socket->socketDescriptor()), SHUT_WR);
    };
    QObject::connect(socket, &QIODevice::bytesWritten, socket, halfClose);
    QObject::connect(socket, &QIODevice::readyRead, socket, [socket] { socket->readAll(); });
    socket->flush();
    halfClose();
    QTimer::singleShot(kLingerMs, socket, [socket] { socket->abort(); });
}

} // namespace flotilla
