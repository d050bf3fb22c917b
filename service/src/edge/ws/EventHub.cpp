#include "ws/EventHub.h"

#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "domain/NotificationService.h"
#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QWebSocket>

namespace flotilla {

namespace m = wire::msg;
namespace k = wire::key;
namespace c = wire::code;

EventHub::EventHub(HubConfig config, AgentRegistry &agents, NotificationService &notifications,
                   QObject *parent)
    : QObject(parent)
    , m_config(config)
    , m_agents(agents) {
    connect(&agents, &AgentRegistry::agentCreated, this,
            [this](const Agent &a) { broadcast(m::AgentCreated, a.toJson()); });
    connect(&agents, &AgentRegistry::agentUpdated, this,
            [this](const QString &, const QJsonObject &changes) {
                broadcast(m::AgentUpdated, changes);
            });
    connect(&agents, &AgentRegistry::agentDeleted, this, [this](const QString &id) {
        broadcast(m::AgentDeleted, QJsonObject{{k::Id, id}});
    });
    connect(&notifications, &NotificationService::notificationPosted, this,
            [this](const Notification &n) { broadcast(m::AgentNotification, n.toJson()); });

    registerIncoming(m::RequestSync,
                     {{}, [this](QWebSocket *ws, const QJsonObject &) { sendSync(ws); }});
    registerIncoming(
        m::Ping, {{}, [this](QWebSocket *ws, const QJsonObject &p) { sendTo(ws, m::Pong, p); }});

    connect(&m_housekeeping, &QTimer::timeout, this, &EventHub::housekeeping);
    m_housekeeping.start(qMin(1000, m_config.stallTimeoutMs / 2));
    connect(&m_pinger, &QTimer::timeout, this, [this] {
        for (Client &c : m_clients)
            c.socket->ping();
    });
    m_pinger.start(m_config.pingIntervalMs);
}

EventHub::~EventHub() {
    for (Client &c : m_clients) {
        c.socket->disconnect(this);
        c.socket->abort();
        delete c.socket;
    }
}

void EventHub::registerIncoming(const QString &type, IncomingHandler handler) {
    m_incoming.emplace(type, std::move(handler));
}

void EventHub::addClient(QWebSocket *socket) {
    socket->setParent(this);
    Client c;
    c.socket = socket;
    c.lastHeard.start();
    m_clients.append(c);
    connect(socket, &QWebSocket::textMessageReceived, this,
            [this, socket](const QString &t) { onText(socket, t); });
    connect(socket, &QWebSocket::binaryMessageReceived, this, [this, socket](const QByteArray &) {
        sendError(socket, QStringLiteral("binary messages are not supported; send JSON text"),
                  c::BadJson);
    });
    connect(socket, &QWebSocket::pong, this, [this, socket](quint64, const QByteArray &) {
        if (Client *cl = find(socket))
            cl->lastHeard.restart();
    });
    connect(socket, &QWebSocket::disconnected, this, [this, socket] { remove(socket); });
    qCInfo(lcWs).noquote() << "client connected from" << socket->peerAddress().toString()
                           << "clients:" << m_clients.size();
    sendSync(socket);
}

void EventHub::remove(QWebSocket *socket) {
    for (qsizetype i = 0; i < m_clients.size(); ++i) {
        if (m_clients[i].socket == socket) {
            m_clients.removeAt(i);
            socket->deleteLater();
            qCInfo(lcWs) << "client disconnected; clients:" << m_clients.size();
            return;
        }
    }
}

EventHub::Client *EventHub::find(QWebSocket *socket) {
    for (Client &c : m_clients) {
        if (c.socket == socket)
            return &c;
    }
    return nullptr;
}

void EventHub::sendSync(QWebSocket *socket) {
    Client *client = find(socket);
    if (!client)
        return;
    // The cached list serialisation is reused: no per-client JSON work.
    const QByteArray agents = "{\"type\":\"" +
                              QByteArray(m::AgentsUpdate.data(), m::AgentsUpdate.size()) +
                              "\",\"payload\":" + m_agents.listJson() + '}';
    send(*client, QString::fromUtf8(agents));
    send(*client, QString::fromUtf8(
                      encodeEvent(m::WorkPlansUpdate, m_workPlans ? m_workPlans() : QJsonArray())));
    if (m_replay) {
        for (const QByteArray &event : m_replay())
            send(*client, QString::fromUtf8(event));
    }
}

void EventHub::broadcast(QLatin1String type, const QJsonValue &payload, Delivery delivery) {
    Q_EMIT broadcasted(type, payload);
    broadcastRaw(encodeEvent(type, payload), delivery);
}

void EventHub::broadcastRaw(const QByteArray &event, Delivery delivery) {
    if (m_clients.isEmpty())
        return;
    const QString text = QString::fromUtf8(event); // once, shared by every client
    for (Client &c : m_clients) {
        if (c.lagging && delivery == Delivery::Always) {
            deliver(c, text);
            continue;
        }
        if (c.lagging) {
            ++m_dropped;
            continue;
        }
        if (c.socket->bytesToWrite() + event.size() > m_config.backlogCapBytes) {
            c.lagging = true;
            c.laggingFor.start();
            ++m_dropped;
            qCWarning(lcWs).noquote()
                << "client" << c.socket->peerAddress().toString() << "port" << c.socket->peerPort()
                << "is not reading; dropping its events";
            continue;
        }
        deliver(c, text);
    }
}

void EventHub::send(Client &client, const QString &text) {
    if (!client.lagging)
        deliver(client, text);
}

void EventHub::deliver(Client &client, const QString &text) {
    if (client.sink)
        client.sink(text);
    else
        client.socket->sendTextMessage(text);
}

void EventHub::dispatchInProcess(const QString &text,
                                 const std::function<void(const QString &)> &reply) {
    QWebSocket probe; // never connected: only its identity is used, replies go to `reply`
    Client c;
    c.socket = &probe;
    c.lastHeard.start();
    c.sink = reply;
    m_clients.append(std::move(c));
    onText(&probe, text);
    for (qsizetype i = 0; i < m_clients.size(); ++i) {
        if (m_clients[i].socket == &probe) {
            m_clients.removeAt(i);
            break;
        }
    }
}

void EventHub::sendTo(QWebSocket *socket, QLatin1String type, const QJsonValue &payload) {
    if (Client *c = find(socket))
        send(*c, QString::fromUtf8(encodeEvent(type, payload)));
}

void EventHub::sendError(QWebSocket *socket, const QString &message, QLatin1String code) {
    sendTo(socket, m::Error, errorPayload(message, code));
}

void EventHub::onText(QWebSocket *socket, const QString &text) {
    if (Client *c = find(socket))
        c->lastHeard.restart();
    QString why;
    const auto msg = decodeClientMessage(text.toUtf8(), &why);
    if (!msg)
        return sendError(socket, why, c::BadJson);
    const auto handler = m_incoming.constFind(msg->type);
    if (handler == m_incoming.constEnd())
        return sendError(socket,
                         QStringLiteral("unknown message type '%1'").arg(msg->type.left(64)),
                         c::UnknownType);
    for (const QString &field : handler->requiredFields) {
        if (!msg->payload.contains(field))
            return sendError(socket,
                             QStringLiteral("'%1' needs payload field '%2'").arg(msg->type, field),
                             c::MissingField);
    }
    handler->handle(socket, msg->payload);
}

void EventHub::housekeeping() {
    const QList<Client> snapshot = m_clients;
    for (const Client &s : snapshot) {
        Client *c = find(s.socket);
        if (!c)
            continue;
        if (c->lastHeard.elapsed() > m_config.pongTimeoutMs) {
            qCWarning(lcWs) << "client silent for" << c->lastHeard.elapsed() << "ms; closing";
            c->socket->abort();
            continue;
        }
        if (!c->lagging)
            continue;
        if (c->socket->bytesToWrite() < m_config.backlogCapBytes / 4) {
            // Caught up: what it missed is summed up by a fresh full sync.
            c->lagging = false;
            qCInfo(lcWs) << "lagging client caught up; resyncing";
            sendSync(c->socket);
        } else if (c->laggingFor.elapsed() > m_config.stallTimeoutMs) {
            qCWarning(lcWs) << "client stalled for" << c->laggingFor.elapsed()
                            << "ms; disconnecting";
            c->socket->abort();
        }
    }
}

void EventHub::closeAll() {
    for (Client &c : m_clients)
        c.socket->close(QWebSocketProtocol::CloseCodeGoingAway, QStringLiteral("service stopping"));
}

qint64 EventHub::largestBacklog() const {
    qint64 most = 0;
    for (const Client &c : m_clients)
        most = qMax(most, c.socket->bytesToWrite());
    return most;
}

qint64 EventHub::largestHealthyBacklog() const {
    qint64 most = 0;
    for (const Client &c : m_clients) {
        if (!c.lagging)
            most = qMax(most, c.socket->bytesToWrite());
    }
    return most;
}

} // namespace flotilla
