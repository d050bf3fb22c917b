// SshTunnel through a shared connection: where ~/.ssh/config has ControlMaster and a ControlPath
// and a master is up (typically kept by ControlPersist after the user logged in, with a
// passphrase or a second factor that the monitor's BatchMode ssh could not answer), the
// tunnel's `ssh -N -L` becomes a session of that master: the master listens on the forward's
// port, our ssh stays until it or the master ends (so drops are seen as ever). The forward
// belongs to the master and would outlive our ssh: stop asks the master to cancel it.

#include "core/MonitorLog.h"
#include "core/SshTunnel.h"

#include <QFileInfo>
#include <QPointer>
#include <QProcess>
#include <QStandardPaths>

namespace flotilla::monitor {

namespace {
constexpr int kControlTimeoutMs = 3000; // `ssh -O ...` talks to a local socket only

QStringList controlArguments(const char *command, const QStringList &extra, const SshTarget &t,
                             quint16 localPort) {
    QStringList args{QStringLiteral("-O"), QLatin1String(command), QStringLiteral("-o"),
                     QStringLiteral("BatchMode=yes")};
    if (localPort != 0)
        args << QStringLiteral("-L")
             << QStringLiteral("127.0.0.1:%1:127.0.0.1:%2").arg(localPort).arg(t.remotePort);
    if (t.sshPort > 0)
        args << QStringLiteral("-p") << QString::number(t.sshPort);
    args << extra << QStringLiteral("--") << t.destination();
    return args;
}
} // namespace

void SshTunnel::detectShared() {
    const QString program =
        QFileInfo(m_program).isAbsolute() ? m_program : QStandardPaths::findExecutable(m_program);
    if (program.isEmpty())
        return;
    auto *check = new QProcess(this);
    check->setStandardInputFile(QProcess::nullDevice());
    check->setStandardOutputFile(QProcess::nullDevice());
    check->setStandardErrorFile(QProcess::nullDevice());
    const QPointer<QProcess> running(m_process);
    connect(check, &QProcess::finished, this, [this, check, running](int code) {
        check->deleteLater();
        // Exit 0: a master answers on the ControlPath, so our ssh is its session.
        if (code == 0 && running && running == m_process && m_state == State::Up) {
            m_shared = true;
            qCInfo(lcSsh).noquote() << "the tunnel to" << m_target.destination()
                                    << "shares a master connection (ControlMaster)";
        }
    });
    connect(check, &QProcess::errorOccurred, check, &QObject::deleteLater);
    check->start(program, controlArguments("check", m_extraOptions, m_target, 0));
}

void SshTunnel::cancelShared() {
    const QString program =
        QFileInfo(m_program).isAbsolute() ? m_program : QStandardPaths::findExecutable(m_program);
    if (program.isEmpty())
        return;
    QProcess p;
    p.setStandardInputFile(QProcess::nullDevice());
    p.start(program, controlArguments("cancel", m_extraOptions, m_target, m_localPort));
    if (!p.waitForFinished(kControlTimeoutMs)) {
        p.kill();
        p.waitForFinished(kControlTimeoutMs);
    }
    qCInfo(lcSsh).noquote() << "forward cancelled in the shared master of" << m_target.destination()
                            << "exit" << p.exitCode()
                            << QString::fromLocal8Bit(p.readAllStandardError()).trimmed();
}

} // namespace flotilla::monitor
