#pragma once
// A QWebSocket that records every message, with waits keyed on message type.

#include <QJsonObject>
#include <QList>
#include <QNetworkRequest>
#include <QObject>
#include <QWebSocket>

namespace flotilla::test {

class WsClient final : public QObject {
    Q_OBJECT
public:
    explicit WsClient(QObject *parent = nullptr);

    bool open(const QNetworkRequest &request, int timeoutMs = 5000);
    bool open(const QUrl &url, int timeoutMs = 5000) {
        return open(QNetworkRequest(url), timeoutMs);
    }
    void sendJson(const QJsonObject &o);
    void sendText(const QString &t) { m_socket.sendTextMessage(t); }

    // Waits until at least `count` messages of `type` were received in total.
    bool waitFor(const QString &type, int count = 1, int timeoutMs = 5000);
    int countOf(const QString &type) const;
    QList<QJsonObject> ofType(const QString &type) const;
    const QList<QJsonObject> &messages() const { return m_messages; }
    QJsonObject last(const QString &type) const;
    void clear() { m_messages.clear(); }

    QWebSocket &socket() { return m_socket; }
    bool isConnected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }

private:
    QWebSocket m_socket;
    QList<QJsonObject> m_messages;
};

} // namespace flotilla::test
