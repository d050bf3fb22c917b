#include "hosts/SshLink.h"

#include "base/ChildProcess.h"
#include "hosts/HostsLogging.h"
#include "protocol/HostNames.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>

#include <csignal>

namespace flotilla {

namespace hs = wire::host::state;

namespace {
constexpr qsizetype kStderrKeep = 4096;
constexpr int kConnectTimeoutS = 10;

// A reason a user can act on, from ssh's last words.
QString reasonFrom(const QByteArray &stderrText, int exitCode) {
    QStringList lines;
    for (const QByteArray &raw : stderrText.split('\n')) {
        const QString line = QString::fromUtf8(raw).trimmed();
        if (!line.isEmpty() && !line.startsWith(QLatin1String("Allocated port")) &&
            !line.startsWith(QLatin1String("Warning: Permanently added")))
            lines << line;
    }
    QString why = lines.isEmpty() ? QStringLiteral("ssh exited with status %1").arg(exitCode)
                                  : lines.mid(qMax(0, lines.size() - 2)).join(QStringLiteral("; "));
    if (why.contains(QLatin1String("Host key verification failed")))
        why += QStringLiteral(" (the host key is not in known_hosts: connect once with ssh, "
                              "check the fingerprint, and try again)");
    return why;
}
} // namespace

SshLink::SshLink(HostConfig host, const SshSettings &settings, QObject *parent)
    : QObject(parent)
    , m_host(std::move(host))
    , m_settings(settings)
    , m_state(hs::Unreachable) {
    // Short and fixed: a Unix socket path has ~107 bytes, and ssh adds a 17-byte suffix while it
    // sets the socket up.
    const QByteArray id =
        QCryptographicHash::hash(m_host.name.toUtf8(), QCryptographicHash::Sha1).toHex().left(12);
    m_controlPath = QDir(m_settings.controlDir).filePath(QString::fromLatin1(id));
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &SshLink::connectNow);
    m_error = QStringLiteral("not connected yet");
}

SshLink::~SshLink() {
    stopMaster();
}

void SshLink::setHost(const HostConfig &host) {
    m_host = host;
    stopMaster();
    m_backoffMs = 0;
    connectNow();
}

bool SshLink::isConnected() const {
    return m_state == hs::Connected;
}

QString SshLink::callbackUrl() const {
    return m_remotePort > 0 ? QStringLiteral("http://127.0.0.1:%1").arg(m_remotePort) : QString();
}

QStringList SshLink::commonOptions() const {
    QStringList o;
    if (!m_settings.configFile.isEmpty())
        o << QStringLiteral("-F") << m_settings.configFile;
    o << QStringLiteral("-S") << m_controlPath << QStringLiteral("-o")
      << QStringLiteral("BatchMode=yes") << QStringLiteral("-o")
      << QStringLiteral("ConnectTimeout=%1").arg(kConnectTimeoutS);
    if (m_host.port > 0)
        o << QStringLiteral("-p") << QString::number(m_host.port);
    return o;
}

QStringList SshLink::sessionOptions() const {
    return commonOptions() << QStringLiteral("-o") << QStringLiteral("ControlMaster=no");
}

void SshLink::connectNow() {
    if (m_master)
        return;
    m_retry.stop();
    if (!m_settings.refusal.isEmpty()) {
        setState(hs::Unreachable, m_settings.refusal);
        return;
    }
    QDir().mkpath(m_settings.controlDir);
    QFile::setPermissions(m_settings.controlDir,
                          QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    QFile::remove(m_controlPath); // a stale socket of an earlier flotillad
    m_stderr.clear();
    m_remotePort = 0;
    m_home.clear();
    QStringList args = commonOptions();
    // StrictHostKeyChecking=yes: a host whose key is not known is refused, never trusted on first
    // use behind the user's back. ExitOnForwardFailure: no link without the callback forward.
    args << QStringLiteral("-M") << QStringLiteral("-N") << QStringLiteral("-o")
         << QStringLiteral("ControlMaster=yes") << QStringLiteral("-o")
         << QStringLiteral("ControlPersist=no") << QStringLiteral("-o")
         << QStringLiteral("StrictHostKeyChecking=yes") << QStringLiteral("-o")
         << QStringLiteral("ServerAliveInterval=15") << QStringLiteral("-o")
         << QStringLiteral("ServerAliveCountMax=3") << QStringLiteral("-o")
         << QStringLiteral("ExitOnForwardFailure=yes") << QStringLiteral("-o")
         << QStringLiteral("LogLevel=INFO") << QStringLiteral("-R")
         << QStringLiteral("127.0.0.1:0:127.0.0.1:%1").arg(m_settings.servicePort)
         << m_host.destination;
    m_master = new QProcess(this);
    m_master->setProgram(m_settings.ssh);
    m_master->setArguments(args);
    m_master->setStandardInputFile(QProcess::nullDevice());
    m_master->setChildProcessModifier(prepareChildProcess);
    connect(m_master, &QProcess::readyReadStandardError, this, &SshLink::onMasterOutput);
    connect(m_master, &QProcess::finished, this, &SshLink::onMasterFinished);
    connect(m_master, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_stderr = m_master->errorString().toUtf8();
            onMasterFinished();
        }
    });
    qCInfo(lcHosts).noquote() << "host" << m_host.name << "connecting:" << m_settings.ssh
                              << args.join(QLatin1Char(' '));
    setState(hs::Connecting);
    m_master->start(QIODevice::ReadOnly);
}

void SshLink::onMasterOutput() {
    if (!m_master)
        return;
    m_stderr += m_master->readAllStandardError();
    if (m_stderr.size() > kStderrKeep)
        m_stderr = m_stderr.right(kStderrKeep);
    if (m_remotePort > 0)
        return;
    static const QRegularExpression allocated(QStringLiteral("Allocated port (\\d+) for remote"));
    const auto m = allocated.match(QString::fromUtf8(m_stderr));
    if (!m.hasMatch())
        return;
    m_remotePort = m.captured(1).toInt();
    fetchHome();
}

// The master is up (the forward stands): one session asks for $HOME there, which also proves
// sessions multiplex over the control socket.
void SshLink::fetchHome() {
    auto *p = new QProcess(this);
    p->setProgram(m_settings.ssh);
    p->setArguments(sessionOptions() << m_host.destination << QStringLiteral("--")
                                     << QStringLiteral("printf '%s' \"$HOME\""));
    p->setStandardInputFile(QProcess::nullDevice());
    connect(p, &QProcess::finished, this, [this, p](int code, QProcess::ExitStatus) {
        p->deleteLater();
        if (!m_master || m_state != hs::Connecting)
            return;
        if (code != 0) {
            qCWarning(lcHosts).noquote()
                << "host" << m_host.name << "session over the master failed:"
                << QString::fromUtf8(p->readAllStandardError()).trimmed();
            stopMaster();
            setState(hs::Unreachable, QStringLiteral("a session over the connection failed"));
            scheduleRetry();
            return;
        }
        m_home = QString::fromUtf8(p->readAllStandardOutput());
        m_backoffMs = 0;
        qCInfo(lcHosts).noquote() << "host" << m_host.name << "connected; callbacks through"
                                  << callbackUrl() << "home" << m_home;
        setState(hs::Connected);
    });
    p->start(QIODevice::ReadOnly);
}

void SshLink::onMasterFinished() {
    if (!m_master)
        return;
    m_stderr += m_master->readAllStandardError();
    const int code = m_master->exitCode();
    m_master->deleteLater();
    m_master = nullptr;
    m_remotePort = 0;
    const QString why = reasonFrom(m_stderr, code);
    qCWarning(lcHosts).noquote() << "host" << m_host.name << "unreachable:" << why;
    setState(hs::Unreachable, why);
    scheduleRetry();
}

void SshLink::scheduleRetry() {
    m_backoffMs = m_backoffMs == 0 ? m_settings.initialBackoffMs
                                   : qMin(m_backoffMs * 2, m_settings.maxBackoffMs);
    m_retry.start(m_backoffMs);
}

void SshLink::stopMaster() {
    m_retry.stop();
    if (!m_master)
        return;
    QProcess *master = std::exchange(m_master, nullptr);
    master->disconnect(this);
    if (master->state() != QProcess::NotRunning) {
        master->terminate();
        if (!master->waitForFinished(2000)) {
            master->kill();
            master->waitForFinished(1000);
        }
    }
    master->deleteLater();
    m_remotePort = 0;
    QFile::remove(m_controlPath);
}

void SshLink::setState(const QString &state, const QString &error) {
    if (state == m_state && error == m_error)
        return;
    m_state = state;
    m_error = error;
    Q_EMIT changed();
}

} // namespace flotilla
