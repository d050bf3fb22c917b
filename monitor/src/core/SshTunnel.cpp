#include "core/SshTunnel.h"

#include "client/ServiceClient.h"
#include "core/MonitorLog.h"

#include <QFileInfo>
#include <QHostAddress>
#include <QRandomGenerator>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>

#include <algorithm>

Q_LOGGING_CATEGORY(lcSsh, "flotilla.monitor.ssh", QtInfoMsg)

namespace flotilla::monitor {

namespace {

// How often the local port is tried while ssh sets up the forward: ssh says nothing on stderr
// when the forward listens, so accepting a connection is the only sign.
constexpr int kProbeIntervalMs = 100;
// Longer than ConnectTimeout plus a slow key exchange: an ssh that has not opened its forward
// by then is stuck (a ProxyCommand that hangs, a server that stalls) and is started again.
constexpr int kStartTimeoutMs = 45000;
// A tunnel that stayed up this long before it dropped starts again from the shortest backoff;
// quicker drops keep counting, so a server that accepts and then closes is not hammered.
constexpr qint64 kStableMs = 30000;
constexpr int kStopGraceMs = 2000;
constexpr int kKeptStderrLines = 20;
constexpr int kErrorLines = 3; // of ssh's stderr, in lastError()

QString portText(int port) {
    return QString::number(port);
}

// The kernel's choice of a free loopback port, released at once for ssh to take. Another
// process may take it in between: ssh then cannot listen and the next attempt picks again.
quint16 pickFreePort() {
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        return 0;
    return server.serverPort();
}

struct Diagnosis {
    bool permanent = false; // retrying with the same settings cannot succeed
    bool portTaken = false; // the local port was taken: the next attempt needs another
    QString hint;
};

// What ssh's stderr of an attempt that never came up says about retrying.
Diagnosis diagnose(const QStringList &lines) {
    const QString all = lines.join(QLatin1Char('\n'));
    const auto has = [&all](const char *text) {
        return all.contains(QLatin1String(text), Qt::CaseInsensitive);
    };
    Diagnosis d;
    if (has("Permission denied") || has("Too many authentication failures")) {
        d.permanent = true;
        d.hint = QStringLiteral("The monitor's ssh never asks for a password or passphrase: use a "
                                "key held by ssh-agent, or one without a passphrase named by "
                                "IdentityFile in ~/.ssh/config.");
    } else if (has("Host key verification failed")) {
        d.permanent = true;
        d.hint = QStringLiteral("The host's key is unknown or has changed: connect once with ssh "
                                "in a terminal to check and accept it.");
    } else {
        // Mistakes in the options or the user's ssh configuration: the same command fails again.
        static const char *const fatal[] = {"Bad configuration option",
                                            "command-line line",
                                            "Bad port",
                                            "usage: ssh",
                                            "illegal option",
                                            "invalid characters",
                                            "Bad owner or permissions",
                                            "Can't open user config file",
                                            "Cannot execute command-line and remote command"};
        for (const char *text : fatal)
            d.permanent = d.permanent || has(text);
    }
    d.portTaken = has("Address already in use") || has("cannot listen to port") ||
                  has("Could not request local forwarding");
    return d;
}

} // namespace

QString toString(SshTunnel::State state) {
    switch (state) {
    case SshTunnel::State::Stopped:
        return QStringLiteral("Stopped");
    case SshTunnel::State::Starting:
        return QStringLiteral("Starting");
    case SshTunnel::State::Up:
        return QStringLiteral("Up");
    case SshTunnel::State::Reconnecting:
        return QStringLiteral("Reconnecting");
    case SshTunnel::State::Failed:
        return QStringLiteral("Failed");
    }
    return QString();
}

QStringList SshTunnel::arguments(const SshTarget &target, quint16 localPort,
                                 const QStringList &extraOptions) {
    const auto opt = [](const char *value) {
        return QStringList{QStringLiteral("-o"), QLatin1String(value)};
    };
    QStringList args{QStringLiteral("-N")};
    // Nobody answers a prompt of a background process: a refused key fails at once instead.
    args << opt("BatchMode=yes");
    // A forward that cannot listen ends ssh; otherwise it would stay connected with no tunnel.
    args << opt("ExitOnForwardFailure=yes");
    // This ssh must hold the forward itself: as the client of a shared master (ControlMaster
    // in ~/.ssh/config, or ControlPersist) it would hand the forward to the master and exit at
    // once, leaving nothing to watch for drops or to stop on disconnect.
    args << opt("ControlMaster=no") << opt("ControlPath=none");
    // Loopback on both ends: other machines never reach the tunnel, and the remote flotillad
    // keeps listening on its own loopback only.
    args << QStringLiteral("-L")
         << QStringLiteral("127.0.0.1:%1:127.0.0.1:%2").arg(localPort).arg(target.remotePort);
    if (target.sshPort > 0)
        args << QStringLiteral("-p") << portText(target.sshPort);
    args << extraOptions;
    // A dead link (no answer to three keepalives 15 s apart) ends ssh, and so a reconnect;
    // an unreachable host is given up after 15 s rather than the system's TCP timeout.
    args << opt("ServerAliveInterval=15") << opt("ServerAliveCountMax=3")
         << opt("ConnectTimeout=15");
    // "--": the destination is never read as an option, whatever the URL held.
    args << QStringLiteral("--") << target.destination();
    return args;
}

SshTunnel::SshTunnel(QObject *parent)
    : QObject(parent) {
    m_probeTimer.setSingleShot(true);
    m_startTimer.setSingleShot(true);
    m_retryTimer.setSingleShot(true);
    connect(&m_probeTimer, &QTimer::timeout, this, &SshTunnel::probe);
    connect(&m_retryTimer, &QTimer::timeout, this, &SshTunnel::launch);
    connect(&m_startTimer, &QTimer::timeout, this, [this] {
        endProcess();
        retry(
            QStringLiteral("ssh did not open the tunnel within %1 s").arg(kStartTimeoutMs / 1000));
    });
}

SshTunnel::~SshTunnel() {
    endProcess();
}

void SshTunnel::setProgram(const QString &program) {
    m_program = program;
}

void SshTunnel::setExtraOptions(const QStringList &options) {
    m_extraOptions = options;
}

void SshTunnel::setBackoff(int initialMs, int maxMs) {
    m_initialBackoffMs = std::max(1, initialMs);
    m_maxBackoffMs = std::max(m_initialBackoffMs, maxMs);
}

QUrl SshTunnel::localUrl() const {
    return QUrl(QStringLiteral("http://127.0.0.1:") + portText(m_localPort));
}

qint64 SshTunnel::processId() const {
    return m_process && m_process->state() == QProcess::Running ? m_process->processId() : 0;
}

void SshTunnel::start(const QUrl &url) {
    QString error;
    const std::optional<SshTarget> target = parseSshTarget(url, &error);
    if (!target) {
        endProcess();
        m_target = {};
        fail(error);
        return;
    }
    start(*target);
}

void SshTunnel::start(const SshTarget &target) {
    endProcess();
    m_target = target;
    m_attempt = 0;
    m_localPort = 0; // a fresh port: a stale client of the last one must not reach this one
    setError({});
    setState(State::Starting);
    launch();
}

void SshTunnel::stop() {
    endProcess();
    setState(State::Stopped);
}

void SshTunnel::launch() {
    if (m_newPort || m_localPort == 0) {
        m_localPort = pickFreePort();
        m_newPort = false;
    }
    if (m_localPort == 0) {
        retry(QStringLiteral("no free local port for the tunnel"));
        return;
    }
    const QString program =
        QFileInfo(m_program).isAbsolute() ? m_program : QStandardPaths::findExecutable(m_program);
    if (program.isEmpty() || !QFileInfo(program).isExecutable()) {
        fail(QStringLiteral("%1 (the OpenSSH client) was not found: install openssh-client")
                 .arg(m_program));
        return;
    }
    m_stderrLines.clear();
    m_stderrPartial.clear();
    auto *p = new QProcess(this);
    p->setProgram(program);
    p->setArguments(arguments(m_target, m_localPort, m_extraOptions));
    // No terminal and no input: with BatchMode nothing could prompt anyway.
    p->setStandardInputFile(QProcess::nullDevice());
    p->setStandardOutputFile(QProcess::nullDevice());
    connect(p, &QProcess::readyReadStandardError, this, [this, p] {
        if (p == m_process)
            onStandardError();
    });
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus status) {
        if (p == m_process)
            onFinished(code, status);
    });
    connect(p, &QProcess::errorOccurred, this, [this, p](QProcess::ProcessError error) {
        if (p == m_process)
            onProcessError(error);
    });
    m_process = p;
    qCInfo(lcSsh).noquote() << "starting" << program << p->arguments().join(QLatin1Char(' '));
    // Timers first: a start that fails reports it from within start(), which stops them.
    m_startTimer.start(kStartTimeoutMs);
    m_probeTimer.start(kProbeIntervalMs);
    p->start();
}

void SshTunnel::onStandardError() {
    m_stderrPartial += m_process->readAllStandardError();
    const qsizetype end = m_stderrPartial.lastIndexOf('\n');
    if (end < 0)
        return;
    const QList<QByteArray> lines = m_stderrPartial.left(end).split('\n');
    m_stderrPartial.remove(0, end + 1);
    for (const QByteArray &raw : lines) {
        const QString line = QString::fromLocal8Bit(raw).trimmed();
        if (line.isEmpty())
            continue;
        qCInfo(lcSsh).noquote() << "ssh:" << line;
        if (line.startsWith(QLatin1String("Warning: Permanently added")))
            continue; // a first connection's note, not an error
        m_stderrLines << line;
        if (m_stderrLines.size() > kKeptStderrLines)
            m_stderrLines.removeFirst();
        // While up, ssh only speaks of trouble: e.g. nothing listening on the remote port.
        if (m_state == State::Up)
            setError(line);
    }
}

void SshTunnel::onProcessError(QProcess::ProcessError error) {
    if (error != QProcess::FailedToStart)
        return; // the others end in finished()
    const QString why = m_process->errorString();
    endProcess();
    fail(QStringLiteral("cannot run %1: %2").arg(m_program, why));
}

void SshTunnel::onFinished(int exitCode, QProcess::ExitStatus status) {
    m_stderrPartial += '\n';
    onStandardError(); // what is left, also an unfinished last line
    const bool wasUp = m_state == State::Up;
    const QStringList said =
        m_stderrLines.mid(std::max<qsizetype>(0, m_stderrLines.size() - kErrorLines));
    QString why = said.join(QLatin1Char('\n'));
    if (why.isEmpty())
        why = status == QProcess::CrashExit
                  ? QStringLiteral("ssh was killed")
                  : QStringLiteral("ssh exited with code %1").arg(exitCode);
    const Diagnosis diagnosis = diagnose(m_stderrLines);
    const bool cleanExit = status == QProcess::NormalExit && exitCode == 0;
    m_process->deleteLater();
    m_process = nullptr;
    qCInfo(lcSsh).noquote() << "ssh to" << m_target.destination() << "ended"
                            << (wasUp ? "(the tunnel was up):" : "before the tunnel was up:")
                            << why;
    if (!wasUp && diagnosis.permanent) {
        endProcess();
        fail(diagnosis.hint.isEmpty() ? why : why + QLatin1Char('\n') + diagnosis.hint);
        return;
    }
    if (!wasUp && cleanExit) {
        // Something in ~/.ssh/config (ForkAfterAuthentication, a RemoteCommand) ended this ssh
        // on purpose: starting it again would do the same.
        endProcess();
        fail(QStringLiteral("ssh ended without keeping the tunnel open: check ~/.ssh/config for "
                            "%1 (ForkAfterAuthentication, RemoteCommand)")
                 .arg(m_target.host));
        return;
    }
    m_newPort = m_newPort || diagnosis.portTaken;
    endProcess();
    retry(why);
}

void SshTunnel::probe() {
    if (!m_process || m_state == State::Up)
        return;
    if (!m_probe) {
        m_probe = new QTcpSocket(this);
        connect(m_probe, &QTcpSocket::connected, this, [this] {
            m_probe->abort();
            becameUp();
        });
        connect(m_probe, &QTcpSocket::errorOccurred, this, [this](QAbstractSocket::SocketError) {
            m_probe->abort();
            if (m_process)
                m_probeTimer.start(kProbeIntervalMs);
        });
    }
    if (m_process->state() != QProcess::Running) {
        m_probeTimer.start(kProbeIntervalMs);
        return;
    }
    m_probe->abort();
    m_probe->connectToHost(QHostAddress(QHostAddress::LocalHost), m_localPort);
}

void SshTunnel::becameUp() {
    if (!m_process || m_process->state() != QProcess::Running)
        return; // ssh ended meanwhile: finished() decides what follows
    m_startTimer.stop();
    m_probeTimer.stop();
    m_upSince.start();
    setError({});
    qCInfo(lcSsh).noquote() << QStringLiteral("tunnel up: 127.0.0.1:%1 -> %2, 127.0.0.1:%3")
                                   .arg(m_localPort)
                                   .arg(m_target.destination())
                                   .arg(m_target.remotePort);
    setState(State::Up);
}

void SshTunnel::retry(const QString &why) {
    setError(why);
    if (m_upSince.isValid() && m_upSince.elapsed() >= kStableMs)
        m_attempt = 0;
    m_upSince.invalidate();
    ++m_attempt;
    const qint64 delay = client::backoffDelayMs(m_attempt, m_initialBackoffMs, m_maxBackoffMs,
                                                QRandomGenerator::global()->generateDouble());
    qCInfo(lcSsh) << "next ssh to" << m_target.destination() << "in" << delay << "ms (attempt"
                  << m_attempt << ")";
    m_retryTimer.start(int(delay));
    setState(State::Reconnecting);
}

void SshTunnel::fail(const QString &why) {
    qCWarning(lcSsh).noquote() << "ssh tunnel to" << m_target.destination() << "failed:" << why;
    setError(why);
    setState(State::Failed);
}

void SshTunnel::endProcess() {
    m_retryTimer.stop();
    m_probeTimer.stop();
    m_startTimer.stop();
    if (m_probe)
        m_probe->abort();
    m_upSince.invalidate();
    if (!m_process)
        return;
    QProcess *p = m_process;
    m_process = nullptr;
    // Its end is wanted now: not a drop to reconnect from.
    disconnect(p, nullptr, this, nullptr);
    if (p->state() == QProcess::Starting)
        p->waitForStarted(kStopGraceMs);
    if (p->state() == QProcess::Running) {
        p->terminate(); // ssh closes its forward and the connection on SIGTERM
        if (!p->waitForFinished(kStopGraceMs)) {
            p->kill();
            p->waitForFinished(kStopGraceMs);
        }
    }
    p->deleteLater(); // this may run inside one of its signals (errorOccurred)
}

void SshTunnel::setState(State state) {
    if (state == m_state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

void SshTunnel::setError(const QString &error) {
    if (error == m_lastError)
        return;
    m_lastError = error;
    Q_EMIT errorChanged(error);
}

} // namespace flotilla::monitor
