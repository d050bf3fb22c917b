#include "sandbox/EgressConnection.h"

#include "base/Logging.h"

#include <QLocalSocket>
#include <QTcpSocket>

#include <utility>

namespace flotilla {

namespace {

// Each side's read buffer and one relay step: what the proxy holds of a side it is not reading.
constexpr qint64 kChunk = 64 * 1024;
// A side with more than this waiting to be written: the other side is not read until it drains,
// so a slow reader holds the fast writer back instead of growing the proxy's memory.
constexpr qint64 kHighWater = 1024 * 1024;
// Connecting to an upstream, and closing: without them a silent host would hold one of the
// agent's connection slots until the kernel gives up (minutes).
constexpr int kConnectTimeoutMs = 30000;
constexpr int kCloseTimeoutMs = 30000;

// Moves what `from` holds to `to` while `to` has room; the rest waits for `to`'s bytesWritten
// (and a full read buffer stops Qt reading `from`'s socket, so the kernel holds the sender).
void relay(QIODevice *from, QIODevice *to) {
    while (to->bytesToWrite() <= kHighWater && from->bytesAvailable() > 0)
        to->write(from->read(kChunk));
}

// What a side holds, also once it is closed (reading a closed device only warns).
QByteArray drain(QIODevice *from) {
    return from->bytesAvailable() > 0 ? from->readAll() : QByteArray();
}

} // namespace

EgressConnection::EgressConnection(QLocalSocket *client, QString agentId, QList<EgressRule> rules,
                                   int headTimeoutMs, Hooks hooks, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_agentId(std::move(agentId))
    , m_rules(std::move(rules))
    , m_hooks(std::move(hooks)) {
    m_client->setParent(this);
    m_client->setReadBufferSize(kChunk);
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, [this] { timedOut(); });
    connect(m_client, &QLocalSocket::readyRead, this, [this] {
        if (m_state == State::Head)
            readHead();
        else if (m_state == State::Relaying)
            pumpUp();
    });
    connect(m_client, &QLocalSocket::bytesWritten, this, [this] {
        if (m_state == State::Relaying)
            pumpDown();
    });
    connect(m_client, &QLocalSocket::disconnected, this, [this] { clientClosed(); });
    m_timer.start(headTimeoutMs);
}

void EgressConnection::drop() {
    if (m_state == State::Done)
        return;
    m_state = State::Done;
    m_timer.stop();
    m_client->disconnect(this);
    m_client->abort();
    if (m_upstream) {
        m_upstream->disconnect(this);
        m_upstream->abort();
    }
    deleteLater(); // drop() may run inside one of this connection's own signals
}

void EgressConnection::readHead() {
    m_buffer += drain(m_client);
    const qsizetype end = m_buffer.indexOf("\r\n\r\n");
    if (end < 0 ? m_buffer.size() >= kMaxHeadBytes : end + 4 > kMaxHeadBytes)
        return refuse(431, "Request Header Fields Too Large",
                      "flotilla sandbox: request head over 16 KiB\n");
    if (end < 0)
        return;
    m_request = parseEgressRequest(m_buffer.left(end + 4));
    m_buffer.remove(0, end + 4); // what came after the head goes upstream as it is
    if (m_request.kind == EgressRequest::Kind::Invalid)
        return refuse(400, "Bad Request",
                      "flotilla sandbox: expected CONNECT host:port or an absolute http:// URL\n");
    const QString target = egressTarget(m_request.host, m_request.port);
    if (!egressAllows(m_rules, m_request.host, m_request.port)) {
        refuse(403, "Forbidden",
               "flotilla sandbox: " + target.toUtf8() + " is not on this agent's allow-list\n");
        m_hooks.blocked(m_request.host, m_request.port);
        return;
    }
    qCDebug(lcSandbox).noquote() << "egress" << m_agentId
                                 << (m_request.kind == EgressRequest::Kind::Connect ? "CONNECT"
                                                                                    : "forward")
                                 << target;
    connectUpstream();
}

void EgressConnection::connectUpstream() {
    m_state = State::Connecting;
    m_upstream = new QTcpSocket(this);
    m_upstream->setReadBufferSize(kChunk);
    connect(m_upstream, &QTcpSocket::connected, this, [this] { upstreamConnected(); });
    connect(m_upstream, &QTcpSocket::errorOccurred, this, [this] { upstreamError(); });
    connect(m_upstream, &QTcpSocket::readyRead, this, [this] {
        if (m_state == State::Relaying)
            pumpDown();
    });
    connect(m_upstream, &QTcpSocket::bytesWritten, this, [this] {
        if (m_state == State::Relaying)
            pumpUp();
    });
    connect(m_upstream, &QTcpSocket::disconnected, this, [this] { upstreamClosed(); });
    m_timer.start(kConnectTimeoutMs);
    m_upstream->connectToHost(m_request.host, static_cast<quint16>(m_request.port));
}

void EgressConnection::upstreamConnected() {
    if (m_state != State::Connecting)
        return;
    m_timer.stop();
    m_state = State::Relaying;
    if (m_request.kind == EgressRequest::Kind::Connect)
        m_client->write("HTTP/1.1 200 Connection established\r\n\r\n");
    else
        m_upstream->write(m_request.upstreamHead);
    if (!m_buffer.isEmpty())
        m_upstream->write(std::exchange(m_buffer, QByteArray()));
    pumpUp();
    pumpDown();
}

void EgressConnection::upstreamError() {
    if (m_state == State::Connecting)
        return refuse(502, "Bad Gateway",
                      "flotilla sandbox: cannot connect to " +
                          egressTarget(m_request.host, m_request.port).toUtf8() + ": " +
                          m_upstream->errorString().toUtf8() + '\n');
    // A failure on an open connection ends it too; Qt signals disconnected for most, this covers
    // the rest.
    if (m_upstream->state() == QAbstractSocket::UnconnectedState)
        upstreamClosed();
}

void EgressConnection::timedOut() {
    switch (m_state) {
    case State::Head:
        qCDebug(lcSandbox).noquote() << "egress" << m_agentId << "sent no request head in time";
        m_client->abort();
        return finish();
    case State::Connecting:
        return refuse(502, "Bad Gateway",
                      "flotilla sandbox: timed out connecting to " +
                          egressTarget(m_request.host, m_request.port).toUtf8() + '\n');
    case State::Closing:
        m_client->abort();
        if (m_upstream)
            m_upstream->abort();
        return finish();
    case State::Relaying:
    case State::Done:
        return;
    }
}

void EgressConnection::pumpUp() {
    if (m_upstream->state() == QAbstractSocket::ConnectedState)
        relay(m_client, m_upstream);
}

void EgressConnection::pumpDown() {
    if (m_client->state() == QLocalSocket::ConnectedState)
        relay(m_upstream, m_client);
}

// One side gone: what it sent still goes to the other, which is then closed once its buffer is
// written (Qt's sockets have no half-close).
void EgressConnection::clientClosed() {
    if (m_state == State::Relaying) {
        m_state = State::Closing;
        m_timer.start(kCloseTimeoutMs);
        if (m_upstream->state() == QAbstractSocket::ConnectedState) {
            m_upstream->write(drain(m_client));
            m_upstream->disconnectFromHost();
        }
    } else if (m_state == State::Head || m_state == State::Connecting) {
        if (m_upstream)
            m_upstream->abort();
        return finish();
    }
    maybeFinish();
}

void EgressConnection::upstreamClosed() {
    if (m_state == State::Relaying) {
        m_state = State::Closing;
        m_timer.start(kCloseTimeoutMs);
        if (m_client->state() == QLocalSocket::ConnectedState) {
            m_client->write(drain(m_upstream));
            m_client->disconnectFromServer();
        }
    }
    maybeFinish();
}

void EgressConnection::refuse(int status, const char *reason, const QByteArray &body) {
    m_state = State::Closing;
    m_timer.start(kCloseTimeoutMs);
    if (m_upstream)
        m_upstream->abort();
    m_client->write(egressResponse(status, reason, body));
    // Into the kernel now: a slot of `blocked` may close the proxy, which aborts this socket.
    m_client->flush();
    m_client->disconnectFromServer();
    maybeFinish();
}

void EgressConnection::maybeFinish() {
    if (m_state == State::Closing && m_client->state() == QLocalSocket::UnconnectedState &&
        (!m_upstream || m_upstream->state() == QAbstractSocket::UnconnectedState))
        finish();
}

void EgressConnection::finish() {
    if (m_state == State::Done)
        return;
    m_state = State::Done;
    m_timer.stop();
    m_hooks.finished(this);
    deleteLater(); // finish() runs inside one of the sockets' signals
}

} // namespace flotilla
