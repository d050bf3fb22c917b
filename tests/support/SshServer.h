#pragma once
// A real OpenSSH server for the ssh:// tests: /usr/sbin/sshd in the foreground on 127.0.0.1 and
// a free port, as the current user, with a host key and an authorized client key made by
// ssh-keygen in a temp dir, and a config of its own (nothing of /etc/ssh is read). Clients use
// clientOptions(): no user or system ssh config, no agent, only the given key, and the server's
// host key pinned in a known_hosts file of the temp dir.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <pwd.h>
#include <unistd.h>

namespace flotilla::test {

class SshServer final {
public:
    static constexpr const char *kSshd = "/usr/sbin/sshd";

    SshServer() = default;
    ~SshServer() {
        if (m_sshd.state() != QProcess::NotRunning) {
            m_sshd.terminate();
            if (!m_sshd.waitForFinished(3000)) {
                m_sshd.kill();
                m_sshd.waitForFinished(3000);
            }
        }
    }
    Q_DISABLE_COPY_MOVE(SshServer)

    // What is missing to run the tests, naming the script that installs it; empty: nothing.
    static QString missingTools() {
        QStringList missing;
        if (!QFileInfo(QString::fromLatin1(kSshd)).isExecutable())
            missing
                << QStringLiteral("sshd (%1, package openssh-server)").arg(QLatin1String(kSshd));
        for (const char *tool : {"ssh", "ssh-keygen"}) {
            if (QStandardPaths::findExecutable(QLatin1String(tool)).isEmpty())
                missing << QStringLiteral("%1 (package openssh-client)").arg(QLatin1String(tool));
        }
        if (missing.isEmpty())
            return {};
        return QStringLiteral("not installed: %1; run scripts/install-deps.sh (as root) to "
                              "install them")
            .arg(missing.join(QStringLiteral(", ")));
    }

    // Keys, config, and sshd listening; an error text, empty on success.
    QString start() {
        if (const QString missing = missingTools(); !missing.isEmpty())
            return missing;
        if (!m_dir.isValid())
            return QStringLiteral("no temp dir");
        if (::geteuid() == 0 && !QFileInfo::exists(QStringLiteral("/run/sshd"))) {
            // Root's sshd insists on its privilege separation directory, which the ssh service
            // (not running on a build machine) would create: the same empty root-owned dir.
            if (!QDir().mkpath(QStringLiteral("/run/sshd")))
                return QStringLiteral("cannot create /run/sshd for a root sshd");
        }
        QString error = makeKey(QStringLiteral("host_key"));
        if (error.isEmpty())
            error = makeKey(QStringLiteral("client_key"));
        if (!error.isEmpty())
            return error;
        if (!copyFile(path(QStringLiteral("client_key.pub")), path(QStringLiteral("authorized"))))
            return QStringLiteral("cannot write the authorized keys");
        m_port = freePort();
        const QByteArray hostKey = readFile(path(QStringLiteral("host_key.pub"))).trimmed();
        if (!writeFile(path(QStringLiteral("known_hosts")),
                       QStringLiteral("[127.0.0.1]:%1 ").arg(m_port).toUtf8() + hostKey + '\n'))
            return QStringLiteral("cannot write known_hosts");
        const QString config =
            QStringLiteral("ListenAddress 127.0.0.1\n"
                           "Port %1\n"
                           "HostKey %2\n"
                           "AuthorizedKeysFile %3\n"
                           "PidFile none\n"
                           "UsePAM no\n"
                           "StrictModes no\n"
                           "PermitRootLogin prohibit-password\n"
                           "PubkeyAuthentication yes\n"
                           "PasswordAuthentication no\n"
                           "KbdInteractiveAuthentication no\n"
                           "AllowTcpForwarding local\n"
                           "X11Forwarding no\n"
                           "PrintMotd no\n"
                           "LogLevel VERBOSE\n")
                .arg(m_port)
                .arg(path(QStringLiteral("host_key")), path(QStringLiteral("authorized")));
        if (!writeFile(path(QStringLiteral("sshd_config")), config.toUtf8()))
            return QStringLiteral("cannot write sshd_config");
        m_sshd.setProcessChannelMode(QProcess::MergedChannels);
        m_sshd.start(QString::fromLatin1(kSshd),
                     {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                      path(QStringLiteral("sshd_config"))});
        const QByteArray ready =
            QStringLiteral("Server listening on 127.0.0.1 port %1").arg(m_port).toUtf8();
        const bool listening = QTest::qWaitFor(
            [&] {
                m_log += m_sshd.readAll();
                return m_log.contains(ready) || m_sshd.state() == QProcess::NotRunning;
            },
            10000);
        if (!listening || !m_log.contains(ready))
            return QStringLiteral("sshd did not start: ") + QString::fromLocal8Bit(log());
        return {};
    }

    quint16 port() const { return m_port; }
    // sshd runs as the current user, so that is the one user it lets in.
    static QString user() {
        const passwd *pw = ::getpwuid(::geteuid());
        return pw ? QString::fromLocal8Bit(pw->pw_name) : QString();
    }
    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString clientKey() const { return path(QStringLiteral("client_key")); }
    // A key the server does not know (for refusals); made on first use.
    QString strangerKey() {
        const QString key = path(QStringLiteral("stranger_key"));
        if (!QFileInfo::exists(key))
            (void)makeKey(QStringLiteral("stranger_key"));
        return key;
    }
    // ssh://<user>@127.0.0.1:<sshd port>?port=<servicePort>
    QUrl url(quint16 servicePort) const {
        return QUrl(QStringLiteral("ssh://%1@127.0.0.1:%2?port=%3")
                        .arg(user())
                        .arg(m_port)
                        .arg(servicePort));
    }
    // Options for SshTunnel::setExtraOptions: nothing of the machine's or the user's ssh setup
    // (ssh reads ~/.ssh of the passwd entry, not $HOME), only `key`, the pinned host key.
    QStringList clientOptions(const QString &key) const {
        return {QStringLiteral("-F"),
                QStringLiteral("none"),
                QStringLiteral("-i"),
                key,
                QStringLiteral("-o"),
                QStringLiteral("IdentitiesOnly=yes"),
                QStringLiteral("-o"),
                QStringLiteral("IdentityAgent=none"),
                QStringLiteral("-o"),
                QStringLiteral("UserKnownHostsFile=") + path(QStringLiteral("known_hosts")),
                QStringLiteral("-o"),
                QStringLiteral("GlobalKnownHostsFile=/dev/null"),
                QStringLiteral("-o"),
                QStringLiteral("StrictHostKeyChecking=yes")};
    }
    QByteArray log() {
        m_log += m_sshd.readAll();
        return m_log;
    }

private:
    QString makeKey(const QString &name) {
        QProcess keygen;
        keygen.setProcessChannelMode(QProcess::MergedChannels);
        keygen.start(QStringLiteral("ssh-keygen"),
                     {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                      QStringLiteral("-N"), QString(), QStringLiteral("-C"),
                      QStringLiteral("flotilla-test"), QStringLiteral("-f"), path(name)});
        if (!keygen.waitForFinished(10000) || keygen.exitCode() != 0)
            return QStringLiteral("ssh-keygen failed: ") + QString::fromLocal8Bit(keygen.readAll());
        return {};
    }
    static quint16 freePort() {
        QTcpServer probe;
        return probe.listen(QHostAddress::LocalHost, 0) ? probe.serverPort() : 0;
    }
    static QByteArray readFile(const QString &file) {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }
    static bool writeFile(const QString &file, const QByteArray &content) {
        QFile f(file);
        return f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
               f.write(content) == content.size();
    }
    static bool copyFile(const QString &from, const QString &to) {
        return writeFile(to, readFile(from));
    }

    QTemporaryDir m_dir;
    QProcess m_sshd;
    QByteArray m_log;
    quint16 m_port = 0;
};

} // namespace flotilla::test
