#include "support/WsClient.h"

#include <QJsonDocument>
#include <QSignalSpy>
#include <QTest>

namespace flotilla::test {

WsClient::WsClient(QObject *parent)
    : QObject(parent) {
    m_socket.setMaxAllowedIncomingMessageSize(64 * 1024 * 1024);
    connect(&m_socket, &QWebSocket::textMessageReceived, this, [this](const QString &t) {
        m_messages.append(QJsonDocument::fromJson(t.toUtf8()).object());
    });
}

bool WsClient::open(const QNetworkRequest &request, int timeoutMs) {
    QSignalSpy connected(&m_socket, &QWebSocket::connected);
    QSignalSpy disconnected(&m_socket, &QWebSocket::disconnected);
    m_socket.open(request);
    (void)QTest::qWaitFor([&] { return !connected.isEmpty() || !disconnected.isEmpty(); },
                          timeoutMs);
    return !connected.isEmpty() && isConnected();
}

void WsClient::sendJson(const QJsonObject &o) {
    m_socket.sendTextMessage(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact)));
}

bool WsClient::waitFor(const QString &type, int count, int timeoutMs) {
    return QTest::qWaitFor([&] { return countOf(type) >= count; }, timeoutMs);
}

int WsClient::countOf(const QString &type) const {
    int n = 0;
    for (const QJsonObject &m : m_messages)
        n += m.value(QLatin1String("type")).toString() == type;
    return n;
}

QList<QJsonObject> WsClient::ofType(const QString &type) const {
    QList<QJsonObject> out;
    for (const QJsonObject &m : m_messages) {
        if (m.value(QLatin1String("type")).toString() == type)
            out.append(m);
    }
    return out;
}

QJsonObject WsClient::last(const QString &type) const {
    const auto all = ofType(type);
    return all.isEmpty() ? QJsonObject() : all.constLast();
}

} // namespace flotilla::test
