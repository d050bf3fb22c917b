#pragma once
// flotillad's one connection to a host (docs/api.md "Hosts"): an ssh ControlMaster that flotillad
// starts and owns (its own ControlPath under the data directory, never the user's master), in
// BatchMode (no prompt ever: a missing key or an unknown host key is a failure that says so),
// with keepalives and a remote forward (127.0.0.1:0 there -> flotillad's port here) through which
// that host's agents reach flotillad's callbacks: flotillad listens on no network interface for
// them. Every process on the host is a session multiplexed over it (RemoteSpec, base/
// RemoteLaunch.h). When the master ends, the link is unreachable with ssh's reason and tries
// again after 1 s, doubling to 60 s.

#include "hosts/HostCatalog.h"

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

class QProcess;

namespace flotilla {

struct SshSettings {
    QString ssh = QStringLiteral("ssh");
    QString configFile; // -F; empty: the user's own ssh config
    QString controlDir; // where the control sockets live (0700)
    QString mirrorDir;  // where copies of hosts' session files live (SessionMirror), per host
    quint16 servicePort = 0;
    // Non-empty: no link may start, and this is why (a service without a token: the forward
    // would open it to every user of the host).
    QString refusal;
    int initialBackoffMs = 1000;
    int maxBackoffMs = 60000;
};

class SshLink final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SshLink)
public:
    SshLink(HostConfig host, const SshSettings &settings, QObject *parent = nullptr);
    ~SshLink() override; // ends the master (its sessions with it)

    const HostConfig &host() const { return m_host; }
    // A changed host (PATCH): reconnects with the new settings.
    void setHost(const HostConfig &host);
    // Starts the master unless it runs or a retry is due sooner.
    void connectNow();

    QString state() const { return m_state; } // wire::host::state
    QString error() const { return m_error; }
    bool isConnected() const;
    // flotillad's address as that host reaches it (the remote forward); empty until connected.
    QString callbackUrl() const;
    QString home() const { return m_home; } // $HOME there, known once connected

    // Options for a session over the master: -F, -S, ControlMaster=no, BatchMode, -p.
    QStringList sessionOptions() const;
    QString controlPath() const { return m_controlPath; }

Q_SIGNALS:
    void changed();

private:
    QStringList commonOptions() const;
    void onMasterOutput();
    void onMasterFinished();
    void fetchHome();
    void setState(const QString &state, const QString &error = {});
    void scheduleRetry();
    void stopMaster();

    HostConfig m_host;
    SshSettings m_settings;
    QString m_controlPath;
    QProcess *m_master = nullptr;
    QByteArray m_stderr;
    QString m_state;
    QString m_error;
    QString m_home;
    int m_remotePort = 0;
    int m_backoffMs = 0;
    QTimer m_retry;
};

} // namespace flotilla
