#include "support/MockHttpServer.h"

#include <QJsonDocument>
#include <QPointer>
#include <QTcpSocket>

#include <chrono>

namespace flotilla::test {

namespace mockjson {

QByteArray compact(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QJsonObject obj(std::initializer_list<std::pair<const char *, QJsonValue>> fields) {
    QJsonObject o;
    for (const auto &f : fields)
        o.insert(QLatin1String(f.first), f.second);
    return o;
}

QJsonValue lit(const char *s) {
    return QJsonValue(QLatin1String(s));
}

QStringList splitText(const QString &text, int n) {
    n = qBound(1, n, qMax(1, int(text.size())));
    QStringList out;
    int from = 0;
    for (int i = 1; i <= n; ++i) {
        int to = i == n ? int(text.size()) : int(qint64(text.size()) * i / n);
        if (to > from && to < text.size() && text.at(to - 1).isHighSurrogate())
            ++to;
        if (to > from || (i == n && out.isEmpty()))
            out << text.mid(from, to - from);
        from = qMax(from, to);
    }
    return out;
}

} // namespace mockjson

namespace {

void stampNow(QByteArray &data, const QByteArray &token) {
    if (token.isEmpty() || !data.contains(token))
        return;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
    data.replace(token, QByteArray::number(qint64(us)));
}

QByteArray statusText(int status) {
    return status == 200 ? "OK" : status == 529 ? "Overloaded" : "Mock Error"; // clients ignore it
}

} // namespace

MockHttpServer::MockHttpServer(Style style, QObject *parent)
    : QObject(parent)
    , m_style(std::move(style)) {
    connect(&m_server, &QTcpServer::newConnection, this, &MockHttpServer::onNewConnection);
}

MockHttpServer::~MockHttpServer() = default;

bool MockHttpServer::start() {
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QList<QJsonObject> MockHttpServer::requests() const {
    QList<QJsonObject> out;
    for (const Request &r : m_requests)
        out << r.json;
    return out;
}

void MockHttpServer::onNewConnection() {
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        // Paced SSE events are small writes: without this, Nagle and the CLI's delayed ACK hold
        // some of them back for up to 40 ms, which the latency benchmark would charge to us.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        new Connection(this, socket);
    }
}

void MockHttpServer::dispatch(Connection *conn, Request req) {
    const qsizetype query = req.target.indexOf('?');
    const QByteArray path = query < 0 ? req.target : req.target.left(query);
    if (req.method != "POST" || path != m_style.apiPath) {
        const QByteArray body = mockjson::compact(otherAnswer(path));
        m_others << std::move(req);
        Q_EMIT otherRequestReceived(int(m_others.size()) - 1);
        conn->respond(200, "application/json", body);
        return;
    }

    m_requests << std::move(req);
    const int index = int(m_requests.size()) - 1;
    QPointer<Connection> guard = conn;
    Q_EMIT requestReceived(index); // a slot may still script this very turn
    if (guard)
        answer(conn, index);
}

MockHttpServer::Connection::Connection(MockHttpServer *server, QTcpSocket *socket)
    : QObject(server)
    , m_server(server)
    , m_socket(socket) {
    socket->setParent(this);
    m_timer.setSingleShot(true);
    if (server->m_style.pacing == Pacing::Schedule)
        m_timer.setTimerType(Qt::PreciseTimer);
    QObject::connect(&m_timer, &QTimer::timeout, this, [this] { writeNextGroup(); });
    QObject::connect(socket, &QTcpSocket::readyRead, this, [this] { readRequests(); });
    QObject::connect(socket, &QTcpSocket::disconnected, this, [this] {
        if (m_busy)
            ++m_server->m_abandoned;
        m_busy = false;
        m_timer.stop();
        deleteLater();
    });
}

void MockHttpServer::Connection::respond(int status, const QByteArray &contentType,
                                         const QByteArray &body, const QByteArray &extraHeaders) {
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + statusText(status) +
                      "\r\nContent-Type: " + contentType +
                      "\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n" +
                      requestIdHeader() + extraHeaders + connectionHeader() + "\r\n";
    m_socket->write(head + body);
    finish();
}

void MockHttpServer::Connection::stream(const QList<QByteArray> &groups, int delayMs, int index) {
    m_busy = true;
    m_index = index;
    m_groups = groups;
    m_delayMs = delayMs;
    m_sentGroups = 0;
    m_clock.start();
    m_socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                    "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n" +
                    requestIdHeader() + connectionHeader() + "\r\n");
    writeNextGroup();
}

QByteArray MockHttpServer::Connection::requestIdHeader() const {
    return m_server->m_style.requestIdHeader + ": req_mock\r\n";
}

QByteArray MockHttpServer::Connection::connectionHeader() const {
    return m_closeAfter ? QByteArrayLiteral("Connection: close\r\n")
                        : QByteArrayLiteral("Connection: keep-alive\r\n");
}

void MockHttpServer::Connection::writeNextGroup() {
    if (!m_busy)
        return;
    const bool schedule = m_server->m_style.pacing == Pacing::Schedule;
    if (m_delayMs <= 0) {
        while (!m_groups.isEmpty())
            writeChunk(m_groups.takeFirst());
    } else if (schedule) {
        const qint64 now = m_clock.elapsed();
        while (!m_groups.isEmpty() && qint64(m_sentGroups) * m_delayMs <= now) {
            writeChunk(m_groups.takeFirst());
            ++m_sentGroups;
        }
    } else if (!m_groups.isEmpty()) {
        writeChunk(m_groups.takeFirst());
    }
    m_socket->flush();
    if (!m_groups.isEmpty()) {
        m_timer.start(
            schedule ? int(qMax<qint64>(0, qint64(m_sentGroups) * m_delayMs - m_clock.elapsed()))
                     : m_delayMs);
        return;
    }
    m_socket->write("0\r\n\r\n");
    m_socket->flush();
    const int index = m_index;
    QPointer<MockHttpServer> server = m_server;
    finish();
    if (server)
        Q_EMIT server->responseFinished(index);
}

void MockHttpServer::Connection::writeChunk(QByteArray data) {
    stampNow(data, m_server->m_style.stampToken);
    m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
    if (m_server->m_style.pacing == Pacing::Schedule)
        m_socket->flush(); // out at the time it was stamped, not after the groups due with it
}

void MockHttpServer::Connection::finish() {
    m_busy = false;
    if (m_closeAfter) {
        m_socket->disconnectFromHost();
        return;
    }
    QTimer::singleShot(0, this, [this] { readRequests(); }); // a pipelined next request
}

void MockHttpServer::Connection::readRequests() {
    m_buffer += m_socket->readAll();
    while (!m_busy && !m_closeAfter) {
        MockHttpRequest http;
        const HttpTake took = takeHttpRequest(&m_buffer, &http);
        if (took == HttpTake::TooLarge)
            m_socket->abort();
        if (took != HttpTake::Taken)
            return;
        m_closeAfter = http.closeAfter();
        Request req;
        req.method = http.method;
        req.target = http.target;
        req.headers = http.headers;
        req.body = http.body;
        req.json = QJsonDocument::fromJson(req.body).object();
        m_server->dispatch(this, std::move(req));
    }
}

} // namespace flotilla::test
