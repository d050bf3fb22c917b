#pragma once
// The way out of an agent's sandbox with `network: "allowlist"` (docs/api.md "Sandbox"): the
// sandbox has its own network namespace, and its only path to the world is an HTTP proxy that
// flotillad serves on a Unix socket bound into it, one socket per agent. The proxy accepts
// `CONNECT host:port` and absolute-form `GET http://host/...` requests for what the agent's
// allow-list names (sandbox/EgressRules.h), answers 403 for any other destination and 400 for
// any other request. One request per connection: after the head it relays bytes both ways, with
// bounded buffers (sandbox/EgressConnection.h).

#include "base/Error.h"
#include "sandbox/EgressRules.h"

#include <QList>
#include <QObject>
#include <QString>

#include <map>
#include <memory>

class QLocalServer;

namespace flotilla {

class EgressConnection;

class EgressProxy final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressProxy)

public:
    static constexpr int kMaxConnections = 256; // per agent

    // `socketDir`: created 0700 if missing; sockets are <socketDir>/<agentId>.sock, 0600.
    explicit EgressProxy(QString socketDir, QObject *parent = nullptr);
    ~EgressProxy() override; // closes every listener and connection, removes the sockets

    // Starts the listener for the agent with these rules and returns its socket's path; or an
    // Error (Internal, sandbox_unavailable) saying why not. For an agent already open, the rules
    // are replaced and its live connections dropped, on the same socket (a sandbox that has it
    // bound keeps reaching it).
    Result<QString> open(const QString &agentId, const QList<EgressRule> &rules);
    void close(const QString &agentId); // the listener, its live connections and its socket
    bool isOpen(const QString &agentId) const;
    QString socketPath(const QString &agentId) const;

    // Tests shorten the wait for a request head; the service keeps the default (10 s).
    void setHeadTimeoutMs(int ms) { m_headTimeoutMs = ms; }

Q_SIGNALS:
    // A connection the rules refused (also logged at info in lcSandbox).
    void blocked(const QString &agentId, const QString &host, int port);

private:
    struct Listener;

    void accept(Listener &listener);
    static void dropConnections(Listener &listener);

    QString m_socketDir;
    int m_headTimeoutMs;
    std::map<QString, std::unique_ptr<Listener>> m_listeners;
};

} // namespace flotilla
