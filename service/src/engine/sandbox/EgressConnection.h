#pragma once
// One connection to an agent's allow-list proxy (sandbox/EgressProxy.h): reads the request head,
// checks it against the agent's rules, connects and relays both ways with bounded buffers.
// Deletes itself once both sides are closed; the proxy drops it earlier when the agent's
// listener closes.

#include "sandbox/EgressRules.h"

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>

class QIODevice;
class QLocalSocket;
class QTcpSocket;

namespace flotilla {

class EgressConnection final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EgressConnection)

public:
    static constexpr qsizetype kMaxHeadBytes = 16 * 1024;
    static constexpr int kHeadTimeoutMs = 10000;

    // How the proxy hears of the connection: plain callbacks rather than signals, so that the
    // proxy's `blocked` carries its agent and `finished` frees the connection's slot.
    struct Hooks {
        std::function<void(const QString &host, int port)> blocked;
        std::function<void(EgressConnection *)> finished;
    };

    // Takes `client` (an accepted socket) as its child.
    EgressConnection(QLocalSocket *client, QString agentId, QList<EgressRule> rules,
                     int headTimeoutMs, Hooks hooks, QObject *parent = nullptr);

    // By the proxy: both sides closed at once, and no hook is called after this.
    void drop();

private:
    enum class State { Head, Connecting, Relaying, Closing, Done };

    void readHead();
    void connectUpstream();
    void upstreamConnected();
    void upstreamError();
    void timedOut();
    void pumpUp();
    void pumpDown();
    void clientClosed();
    void upstreamClosed();
    void refuse(int status, const char *reason, const QByteArray &body);
    void maybeFinish();
    void finish();

    QLocalSocket *m_client;
    QTcpSocket *m_upstream = nullptr;
    QString m_agentId;
    QList<EgressRule> m_rules;
    Hooks m_hooks;
    QTimer m_timer; // the head, the connect and the close each have a deadline
    State m_state = State::Head;
    QByteArray m_buffer; // the head, then what followed it until the upstream is connected
    EgressRequest m_request;
};

} // namespace flotilla
