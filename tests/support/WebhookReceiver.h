#pragma once
// A webhook receiver on loopback for the notification channel tests: records every request and
// answers 200, 500, or never (hang), as told; stop() closes the port (connection refused) and
// start() opens the same port again, as a receiver that was down and came back.

#include "support/MockHttp.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QTcpServer>
#include <QUrl>

class QTcpSocket;

namespace flotilla::test {

class WebhookReceiver final : public QObject {
    Q_OBJECT
public:
    enum class Mode { Ok, Fail, Hang };

    struct Received {
        MockHttpRequest request;
        int answer = 0; // the status sent back; 0 while hanging (never answered)
        QByteArray header(const QByteArray &lower) const { return request.headers.value(lower); }
        QByteArray deliveryId() const { return header("x-flotilla-delivery"); }
    };

    explicit WebhookReceiver(QObject *parent = nullptr);
    ~WebhookReceiver() override;

    // Listens on 127.0.0.1: a free port the first time, the same one after stop().
    bool start();
    // Closes the listener and every connection (hanging ones too).
    void stop();
    void setMode(Mode mode) { m_mode = mode; }

    quint16 port() const { return m_port; }
    QUrl url(const QString &path = QStringLiteral("/hook")) const;

    const QList<Received> &received() const { return m_received; }
    int count() const { return int(m_received.size()); }
    // What a receiver that dedups would act on: the delivery ids it answered 2xx, once each.
    QSet<QByteArray> acceptedIds() const;
    // Requests answered 2xx whose id had been answered 2xx before.
    int acceptedDuplicates() const;
    void clear() { m_received.clear(); }

private:
    void onConnection();
    void onReadable(QTcpSocket *socket);

    QTcpServer m_server;
    quint16 m_port = 0;
    Mode m_mode = Mode::Ok;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    QList<Received> m_received;
};

} // namespace flotilla::test
