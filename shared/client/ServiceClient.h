#pragma once
// The client side of the Flotilla API, shared by the monitor and anything else that talks to
// flotillad: REST calls (QNetworkAccessManager) and the event channel (QWebSocket) with automatic
// reconnection. Qt Core + Network + WebSockets only; never Widgets.
//
// Reconnection: after an unexpected close the client waits 0.5 s, 1 s, 2 s ... up to 30 s
// (+-20 % jitter) between attempts; a 401/403 at the handshake stops retrying (AuthFailed).
// Every (re)connection starts with the service's agents_update, which callers treat as a full
// snapshot: state never goes stale across a reconnect.

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMetaType>
#include <QObject>
#include <QUrl>

#include <functional>
#include <memory>

namespace flotilla::client {

enum class ConnectionState { Disconnected, Connecting, Connected, Reconnecting, AuthFailed };
QString toString(ConnectionState state);

// The wait before reconnection attempt `attempt` (1-based): initialMs * 2^(attempt-1), capped at
// maxMs, then scaled by a jitter factor in [0.8, 1.2] taken from `unit` in [0, 1).
qint64 backoffDelayMs(int attempt, int initialMs, int maxMs, double unit);

struct Endpoint {
    QUrl baseUrl;     // e.g. http://127.0.0.1:5174 (the WebSocket is baseUrl with ws:// + /ws)
    QByteArray token; // empty: auth off
};

struct RestReply {
    int status = 0;     // HTTP status; 0: no answer (network error)
    QJsonDocument body; // parsed JSON body, if any
    QString error;      // the service's {"error"} or the network error text
    QString code;       // the service's {"code"}
    bool ok() const { return status >= 200 && status < 300; }
};

class ServiceClient final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ServiceClient)
public:
    using Callback = std::function<void(const RestReply &)>;

    explicit ServiceClient(QObject *parent = nullptr);
    ~ServiceClient() override;

    void setEndpoint(const Endpoint &endpoint); // takes effect on the next connectToService()
    Endpoint endpoint() const;

    void connectToService();      // opens the WebSocket; keeps reconnecting until disconnected
    void disconnectFromService(); // closes and stops reconnecting
    ConnectionState state() const;
    int reconnectAttempt() const;     // 0 while connected
    qint64 nextRetryInMs() const;     // -1 when no retry is scheduled
    void setMaxBackoffMs(int ms);     // tests shorten it
    void setInitialBackoffMs(int ms); // tests shorten it
    // Liveness: an app-level ping every intervalMs; a connection silent for timeoutMs is
    // dropped and reconnected (a half-open TCP connection would otherwise look alive forever).
    // 0 disables. Default 30 s / 75 s, as the service's own ping timeout.
    void setHeartbeat(int intervalMs, int timeoutMs);
    // Larger incoming messages close the connection (1009) instead of growing memory. Default
    // 64 MiB: an agents_update of many agents is the largest thing the service sends.
    void setMaxIncomingMessageSize(qint64 bytes);
    QUrl webSocketUrl() const; // ws(s)://host:port[/prefix]/ws of the current endpoint

    // REST, asynchronous; `done` runs on this thread once (also on network errors). Paths start
    // with /api. The token goes in X-Auth-Token.
    void get(const QString &path, Callback done = {});
    void post(const QString &path, const QJsonObject &body, Callback done = {});
    void put(const QString &path, const QJsonObject &body, Callback done = {});
    void patch(const QString &path, const QJsonObject &body, Callback done = {});
    void del(const QString &path, Callback done = {});

    // One WebSocket message {type, payload}. Dropped (returns false) while not connected.
    bool sendEvent(const QString &type, const QJsonObject &payload = {});

Q_SIGNALS:
    void stateChanged(flotilla::client::ConnectionState state);
    // Every server message, in order.
    void eventReceived(const QString &type, const QJsonValue &payload);
    void connectionError(const QString &message); // human-readable, for a status bar

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace flotilla::client

// For QSignalSpy and queued connections of stateChanged.
Q_DECLARE_METATYPE(flotilla::client::ConnectionState)
