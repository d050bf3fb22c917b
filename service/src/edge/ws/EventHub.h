#pragma once
// The WebSocket side: one hub turns domain signals into events, serialises each once and fans the
// same bytes out to every client; incoming messages go through a table keyed by type
// (registerIncoming), not an if-chain.
//
// Slow clients: before each send the client's socket backlog (bytesToWrite) is checked. Over the
// cap, the client is marked lagging and events for it are dropped (counted) instead of queued, so
// it can neither grow our memory nor slow anyone else. When its backlog drains it receives a full
// `agents_update` resync (what it missed is then reflected); if it stays over the cap for
// stallTimeoutMs it is disconnected.

#include "protocol/Envelope.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>

class QWebSocket;

namespace flotilla {

class AgentRegistry;
class NotificationService;

struct HubConfig {
    qint64 backlogCapBytes = 4 * 1024 * 1024;
    int stallTimeoutMs = 30'000;
    int pingIntervalMs = 30'000;
    int pongTimeoutMs = 75'000; // no frame and no pong for this long -> dead
};

class EventHub final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EventHub)
public:
    struct IncomingHandler {
        QStringList requiredFields;
        std::function<void(QWebSocket *client, const QJsonObject &payload)> handle;
    };

    EventHub(HubConfig config, AgentRegistry &agents, NotificationService &notifications,
             QObject *parent = nullptr);
    ~EventHub() override;

    // Takes ownership of an authenticated socket and sends it the on-connect sync.
    void addClient(QWebSocket *socket);
    // Registers a client->server message type (their owners add boss, permission... handlers).
    void registerIncoming(const QString &type, IncomingHandler handler);
    // Supplies the work_plans_update payload sent on connect and on resync (default: []).
    void setWorkPlansProvider(std::function<QJsonArray()> provider) {
        m_workPlans = std::move(provider);
    }
    // Messages sent to each client right after the on-connect sync (e.g. pending permission
    // requests).
    void setConnectReplayProvider(std::function<QList<QByteArray>()> provider) {
        m_replay = std::move(provider);
    }

    // Droppable events are skipped for a lagging client (its resync sums them up); Always events
    // (the final chunk of a turn) are queued even then: they are few, and a client must learn
    // that a turn ended.
    enum class Delivery { Droppable, Always };
    void broadcast(QLatin1String type, const QJsonValue &payload,
                   Delivery delivery = Delivery::Droppable);
    void broadcastRaw(const QByteArray &event, Delivery delivery = Delivery::Droppable);
    void sendTo(QWebSocket *socket, QLatin1String type, const QJsonValue &payload);

    // In-process dispatch of one client message, without a network connection (the WebSocket
    // fuzzer): `text` goes through the same table as a real client's text frame, on behalf of a
    // client that exists only for this call; every message the hub sends that client meanwhile
    // (replies, errors, broadcasts) is handed to `reply`.
    void dispatchInProcess(const QString &text, const std::function<void(const QString &)> &reply);

    // Closes every client with "going away" (service shutdown).
    void closeAll();

    int clientCount() const { return int(m_clients.size()); }
    quint64 droppedEvents() const { return m_dropped; }
    qint64 largestBacklog() const;
    // The same over clients that are keeping up: what producers pace themselves by. A client
    // already marked lagging gets dropped events and a resync instead, so it must not slow the
    // others.
    qint64 largestHealthyBacklog() const;

Q_SIGNALS:
    // Every broadcast, before it is serialised, clients or not: for in-process observers (the
    // outgoing notification channels read permission_request here). Direct connections only.
    void broadcasted(QLatin1String type, const QJsonValue &payload);

private:
    struct Client {
        QWebSocket *socket = nullptr;
        bool lagging = false;
        QElapsedTimer laggingFor;
        QElapsedTimer lastHeard;
        std::function<void(const QString &)> sink; // in-process client: gets what is sent
    };

    void sendSync(QWebSocket *socket);
    void onText(QWebSocket *socket, const QString &text);
    void sendError(QWebSocket *socket, const QString &message, QLatin1String code);
    void send(Client &client, const QString &text);
    static void deliver(Client &client, const QString &text);
    void housekeeping();
    void remove(QWebSocket *socket);
    Client *find(QWebSocket *socket);

    HubConfig m_config;
    AgentRegistry &m_agents;
    QList<Client> m_clients;
    QHash<QString, IncomingHandler> m_incoming;
    QTimer m_housekeeping;
    QTimer m_pinger;
    quint64 m_dropped = 0;
    std::function<QJsonArray()> m_workPlans;
    std::function<QList<QByteArray>()> m_replay;
};

} // namespace flotilla
