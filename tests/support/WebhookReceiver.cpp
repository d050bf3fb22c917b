#include "support/WebhookReceiver.h"

#include <QTcpSocket>

namespace flotilla::test {

WebhookReceiver::WebhookReceiver(QObject *parent)
    : QObject(parent) {
    connect(&m_server, &QTcpServer::newConnection, this, &WebhookReceiver::onConnection);
}

WebhookReceiver::~WebhookReceiver() {
    stop();
}

bool WebhookReceiver::start() {
    if (!m_server.listen(QHostAddress::LocalHost, m_port))
        return false;
    m_port = m_server.serverPort();
    return true;
}

void WebhookReceiver::stop() {
    m_server.close();
    const QList<QTcpSocket *> sockets = m_buffers.keys();
    m_buffers.clear();
    for (QTcpSocket *s : sockets) {
        s->disconnect(this);
        s->abort();
        s->deleteLater();
    }
}

QUrl WebhookReceiver::url(const QString &path) const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(m_port).arg(path));
}

QSet<QByteArray> WebhookReceiver::acceptedIds() const {
    QSet<QByteArray> ids;
    for (const Received &r : m_received) {
        if (r.answer >= 200 && r.answer < 300)
            ids.insert(r.deliveryId());
    }
    return ids;
}

int WebhookReceiver::acceptedDuplicates() const {
    int accepted = 0;
    for (const Received &r : m_received)
        accepted += r.answer >= 200 && r.answer < 300 ? 1 : 0;
    return accepted - int(acceptedIds().size());
}

void WebhookReceiver::onConnection() {
    while (QTcpSocket *s = m_server.nextPendingConnection()) {
        m_buffers.insert(s, {});
        connect(s, &QTcpSocket::readyRead, this, [this, s] { onReadable(s); });
        connect(s, &QTcpSocket::disconnected, this, [this, s] {
            m_buffers.remove(s);
            s->deleteLater();
        });
    }
}

void WebhookReceiver::onReadable(QTcpSocket *socket) {
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    MockHttpRequest request;
    while (takeHttpRequest(&buffer, &request) == HttpTake::Taken) {
        Received r{request, 0};
        if (m_mode == Mode::Hang) {
            m_received.append(r);
            continue; // never answered; the sender's timeout (or stop()) ends it
        }
        r.answer = m_mode == Mode::Ok ? 200 : 500;
        m_received.append(r);
        const QByteArray body = r.answer == 200 ? QByteArray("ok") : QByteArray("down");
        socket->write(QByteArray("HTTP/1.1 ") + QByteArray::number(r.answer) +
                      (r.answer == 200 ? " OK" : " Internal Server Error") +
                      "\r\nContent-Type: text/plain\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\n\r\n" + body);
    }
}

} // namespace flotilla::test
