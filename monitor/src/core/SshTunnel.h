#pragma once
// An ssh:// service: a flotillad on another machine, reached through an OpenSSH local forward
// (`ssh -N -L 127.0.0.1:<local>:127.0.0.1:<remote port> [user@]host`), so the service keeps
// listening on its own loopback and the network only sees ssh. SshTunnel runs that ssh as a
// child process (an argument list, never a shell), says when the forward accepts connections,
// restarts ssh with backoff when it ends unexpectedly, and stops it on stop() or destruction.
// Widgets-free; the options and states are described in README.md (The desktop monitor).

#include "core/SshTarget.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>
#include <QUrl>

class QTcpSocket;

namespace flotilla::monitor {

class SshTunnel final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SshTunnel)
public:
    // Stopped: not wanted. Starting: the first ssh of a start() runs, its forward does not
    // accept connections yet. Up: the local port accepts connections (the remote flotillad may
    // still be down: the client reports that). Reconnecting: ssh ended or never came up for a
    // reason that may pass (network, refused connection, killed); the next ssh runs after a
    // backoff. Failed: retrying cannot help (bad URL, key refused, unknown host key, no ssh
    // program); lastError() says why, start() again after fixing it.
    enum class State { Stopped, Starting, Up, Reconnecting, Failed };
    Q_ENUM(State)

    explicit SshTunnel(QObject *parent = nullptr);
    ~SshTunnel() override; // stops ssh

    void setProgram(const QString &program); // default: "ssh" found in PATH
    // Added to every command line before the defaults they may override (-i key, -F none,
    // -o UserKnownHostsFile=...). The options the tunnel relies on come first and stay.
    void setExtraOptions(const QStringList &options);
    void setBackoff(int initialMs, int maxMs); // between restarts; default 1 s doubling to 30 s

    // (Re)starts the tunnel to the URL's target on a fresh free local port; a URL that
    // parseSshTarget() refuses goes to Failed with its reason.
    void start(const QUrl &url);
    void start(const SshTarget &target);
    void stop(); // terminates ssh (SIGTERM, then SIGKILL after 2 s) and waits for it

    State state() const { return m_state; }
    SshTarget target() const { return m_target; }
    // Why the tunnel is not up (ssh's last stderr lines, or the monitor's own reason), or what
    // ssh reported while up (e.g. nothing listening on the remote port). Empty: nothing to say.
    QString lastError() const { return m_lastError; }
    quint16 localPort() const { return m_localPort; }
    QUrl localUrl() const;                    // http://127.0.0.1:<localPort>
    qint64 processId() const;                 // of the running ssh; 0 when none runs
    int attempt() const { return m_attempt; } // restarts since it was last up for a while

    // The ssh command line (without the program). The options the tunnel relies on come first:
    // ssh keeps the first value it is given for an option, so neither `extraOptions` nor
    // ~/.ssh/config can undo them; ServerAlive/ConnectTimeout defaults come after the extras.
    static QStringList arguments(const SshTarget &target, quint16 localPort,
                                 const QStringList &extraOptions);

Q_SIGNALS:
    void stateChanged(flotilla::monitor::SshTunnel::State state);
    void errorChanged(const QString &error);

private:
    void launch();
    void onStandardError();
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onProcessError(QProcess::ProcessError error);
    void probe();
    void becameUp();
    void retry(const QString &why);
    void fail(const QString &why);
    void endProcess();
    void setState(State state);
    void setError(const QString &error);

    QString m_program = QStringLiteral("ssh");
    QStringList m_extraOptions;
    int m_initialBackoffMs = 1000;
    int m_maxBackoffMs = 30000;
    SshTarget m_target;
    State m_state = State::Stopped;
    QString m_lastError;
    quint16 m_localPort = 0;
    bool m_newPort = false; // the last ssh could not listen on m_localPort: take another
    int m_attempt = 0;
    QProcess *m_process = nullptr; // the running ssh, child of this
    QTcpSocket *m_probe = nullptr; // tries the local port until it accepts, child of this
    QStringList m_stderrLines;     // of the current ssh, last few kept
    QByteArray m_stderrPartial;    // an unfinished line
    QTimer m_probeTimer;
    QTimer m_startTimer; // gives up on an ssh that never opens the forward
    QTimer m_retryTimer;
    QElapsedTimer m_upSince;
};

QString toString(SshTunnel::State state);

} // namespace flotilla::monitor
