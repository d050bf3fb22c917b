#include "sandbox/EgressProxy.h"

#include "base/Logging.h"
#include "protocol/SandboxNames.h"
#include "sandbox/EgressConnection.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocalServer>
#include <QLocalSocket>
#include <QRegularExpression>
#include <QSet>

#include <utility>

namespace flotilla {

struct EgressProxy::Listener {
    QString agentId;
    QString path;
    QLocalServer *server = nullptr; // a child of the proxy, and the parent of the connections
    QList<EgressRule> rules;
    QSet<EgressConnection *> connections;
    bool saturated = false; // refusing with 503, logged
};

EgressProxy::EgressProxy(QString socketDir, QObject *parent)
    : QObject(parent)
    , m_socketDir(std::move(socketDir))
    , m_headTimeoutMs(EgressConnection::kHeadTimeoutMs) {
}

EgressProxy::~EgressProxy() {
    for (auto &entry : m_listeners) {
        Listener &listener = *entry.second;
        dropConnections(listener);
        listener.server->disconnect(this);
        listener.server->close(); // removes the socket file; ~QObject deletes the rest
    }
}

QString EgressProxy::socketPath(const QString &agentId) const {
    return m_socketDir + u'/' + agentId + QStringLiteral(".sock");
}

Result<QString> EgressProxy::open(const QString &agentId, const QList<EgressRule> &rules) {
    const auto unavailable = [&agentId](const QString &why) {
        return Error::internal(wire::sandbox::code::SandboxUnavailable,
                               QStringLiteral("cannot start the network allow-list proxy for "
                                              "agent '%1': %2")
                                   .arg(agentId.left(80), why));
    };
    // The id names a file in the socket directory.
    static const QRegularExpression idRe(QStringLiteral("^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$"));
    if (!idRe.match(agentId).hasMatch())
        return unavailable(QStringLiteral("the agent id cannot name a socket file"));
    if (const auto it = m_listeners.find(agentId); it != m_listeners.end()) {
        Listener &listener = *it->second;
        listener.rules = rules;
        dropConnections(listener); // they were let through under the old rules
        qCInfo(lcSandbox).noquote() << "egress rules of" << agentId << "replaced";
        return listener.path;
    }
    const QFileInfo dirInfo(m_socketDir);
    if (!dirInfo.isDir() &&
        (!QDir().mkpath(dirInfo.absolutePath()) ||
         !QDir().mkdir(m_socketDir, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner)))
        return unavailable(QStringLiteral("cannot create %1").arg(m_socketDir));

    auto listener = std::make_unique<Listener>();
    listener->agentId = agentId;
    listener->path = socketPath(agentId);
    listener->rules = rules;
    listener->server = new QLocalServer(this);
    // Bound in a private temporary directory and moved into place, so it is never reachable
    // with looser permissions; then 0600 (Qt leaves 0700).
    listener->server->setSocketOptions(QLocalServer::UserAccessOption);
    listener->server->setListenBacklogSize(kMaxConnections);
    QLocalServer::removeServer(listener->path); // left by a run that did not end cleanly
    if (!listener->server->listen(listener->path) ||
        !QFile::setPermissions(listener->path, QFile::ReadOwner | QFile::WriteOwner)) {
        const QString why = listener->server->errorString();
        listener->server->close();
        delete listener->server;
        return unavailable(QStringLiteral("cannot listen on %1: %2").arg(listener->path, why));
    }
    Listener *raw = listener.get();
    connect(raw->server, &QLocalServer::newConnection, this, [this, raw] { accept(*raw); });
    m_listeners.emplace(agentId, std::move(listener));
    qCInfo(lcSandbox).noquote() << "egress proxy for" << agentId << "on" << raw->path << "with"
                                << rules.size() << "allowed host(s)";
    return raw->path;
}

void EgressProxy::close(const QString &agentId) {
    const auto it = m_listeners.find(agentId);
    if (it == m_listeners.end())
        return;
    Listener &listener = *it->second;
    dropConnections(listener);
    listener.server->disconnect(this);
    listener.server->close(); // removes the socket file
    // Later: close() may run inside one of the connections' own signals (a slot of blocked).
    listener.server->deleteLater();
    m_listeners.erase(it);
    qCInfo(lcSandbox).noquote() << "egress proxy for" << agentId << "closed";
}

bool EgressProxy::isOpen(const QString &agentId) const {
    return m_listeners.count(agentId) > 0;
}

void EgressProxy::accept(Listener &listener) {
    while (QLocalSocket *socket = listener.server->nextPendingConnection()) {
        if (listener.connections.size() >= kMaxConnections) {
            // Once per saturation: an agent retrying in a loop must not flood the log.
            if (!std::exchange(listener.saturated, true))
                qCWarning(lcSandbox).noquote()
                    << "egress proxy for" << listener.agentId << "refuses connections: already"
                    << kMaxConnections << "open";
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            socket->write(egressResponse(503, "Service Unavailable",
                                         "flotilla sandbox: too many connections\n"));
            socket->disconnectFromServer();
            if (socket->state() == QLocalSocket::UnconnectedState)
                socket->deleteLater();
            continue;
        }
        EgressConnection::Hooks hooks;
        const QString agentId = listener.agentId;
        hooks.blocked = [this, agentId](const QString &host, int port) {
            qCInfo(lcSandbox).noquote()
                << "egress of" << agentId << "to" << egressTarget(host, port) << "blocked";
            Q_EMIT blocked(agentId, host, port);
        };
        Listener *raw = &listener;
        hooks.finished = [raw](EgressConnection *connection) {
            raw->connections.remove(connection);
            raw->saturated = false;
        };
        listener.connections.insert(new EgressConnection(
            socket, agentId, listener.rules, m_headTimeoutMs, std::move(hooks), listener.server));
    }
}

void EgressProxy::dropConnections(Listener &listener) {
    const QSet<EgressConnection *> connections = std::exchange(listener.connections, {});
    for (EgressConnection *connection : connections)
        connection->drop();
}

} // namespace flotilla
