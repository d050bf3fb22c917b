#pragma once
// "Another machine" for the tests of agents on remote hosts: a fresh Unix account (flrm + 6
// random characters) with the pinned claude and codex CLIs in its home, and a real root sshd on
// 127.0.0.2 (a second loopback address, so nothing can mistake it for the local host) that lets
// only that account in with a key of a temp dir. sshConfig() is the client config flotillad gets
// as `ssh -F`. Creating an account needs root (CI runs as root); start() says so, it never skips.
// The destructor kills the account's processes and deletes the account, whatever the test did.

#include "support/SshServer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QProcess>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flotilla::test {

class RemoteHost final {
public:
    static constexpr const char *kAddress = "127.0.0.2";

    RemoteHost() = default;
    ~RemoteHost() {
        if (m_sshd.state() != QProcess::NotRunning) {
            m_sshd.terminate();
            if (!m_sshd.waitForFinished(3000)) {
                m_sshd.kill();
                m_sshd.waitForFinished(3000);
            }
        }
        if (!m_user.isEmpty())
            removeAccount(m_user);
    }
    Q_DISABLE_COPY_MOVE(RemoteHost)

    // Account, CLIs, keys, configs and sshd listening; an error text, empty on success.
    QString start() {
        if (::geteuid() != 0)
            return QStringLiteral("the remote host tests create a Unix account (useradd) and run "
                                  "sshd as root: run them as root, as CI does");
        if (const QString missing = SshServer::missingTools(); !missing.isEmpty())
            return missing;
        if (!m_dir.isValid())
            return QStringLiteral("no temp dir");
        removeStaleAccounts();
        QString error = createAccount();
        if (error.isEmpty())
            error = copyClis();
        if (error.isEmpty())
            error = checkCli(claudeBin());
        if (error.isEmpty())
            error = checkCli(codexBin());
        if (error.isEmpty())
            error = startSshd();
        return error;
    }

    QString user() const { return m_user; }
    QString home() const { return m_home; }
    quint16 port() const { return m_port; }
    // What the service parses as a remote host: user@host[:port].
    QString destination() const {
        return QStringLiteral("%1@%2:%3").arg(m_user, QLatin1String(kAddress)).arg(m_port);
    }
    QString claudeBin() const {
        return m_home + QStringLiteral("/cli/claude-code/node_modules/.bin/claude");
    }
    QString codexBin() const {
        return m_home + QStringLiteral("/cli/codex/node_modules/.bin/codex");
    }
    // `ssh -F` files: the client key only, no agent, the host key pinned; or no known host key.
    QString sshConfig() const { return path(QStringLiteral("ssh_config")); }
    QString sshConfigWithoutHostKey() const { return path(QStringLiteral("ssh_config_unknown")); }
    qint64 copyMs() const { return m_copyMs; }
    QByteArray log() {
        m_log += m_sshd.readAll();
        return m_log;
    }

    // A file of the account's own (0600, new dirs 0700), e.g. ".claude/settings.json".
    bool writeHomeFile(const QString &relativePath, const QByteArray &content) {
        const QString file = QDir::cleanPath(m_home + QLatin1Char('/') + relativePath);
        if (m_home.isEmpty() || !file.startsWith(m_home + QLatin1Char('/')))
            return false;
        QStringList created;
        for (QString dir = QFileInfo(file).path(); !QFileInfo::exists(dir);
             dir = QFileInfo(dir).path())
            created.prepend(dir);
        for (const QString &dir : std::as_const(created)) {
            if (!QDir().mkdir(dir) || !own(dir, 0700))
                return false;
        }
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            f.write(content) != content.size())
            return false;
        f.close();
        return own(file, 0600);
    }

private:
    QString path(const QString &name) const { return m_dir.filePath(name); }

    QString createAccount() {
        static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
        QString name = QStringLiteral("flrm");
        for (int i = 0; i < 6; ++i)
            name += QLatin1Char(kChars[QRandomGenerator::global()->bounded(36)]);
        // The comment names this process, so a later run can remove the account of a crashed one.
        QString out;
        if (run("useradd",
                words("--create-home --shell /bin/bash --comment")
                    << QStringLiteral("flotilla test pid %1").arg(::getpid()) << name,
                &out) != 0)
            return QStringLiteral("useradd %1 failed: %2").arg(name, out);
        m_user = name;
        // A new account's password is "!", which sshd without PAM takes for a locked account.
        if (run("usermod", words("-p *") << name, &out) != 0)
            return QStringLiteral("usermod -p '*' %1 failed: %2").arg(name, out);
        const passwd *pw = ::getpwnam(name.toLocal8Bit().constData());
        if (!pw)
            return QStringLiteral("no passwd entry for the new account %1").arg(name);
        m_home = QString::fromLocal8Bit(pw->pw_dir);
        m_uid = pw->pw_uid;
        m_gid = pw->pw_gid;
        return {};
    }

    // Hard links: 0.8 GB of CLIs in a few ms. They stay root's (chown would change the originals,
    // which are the same inodes); the account only needs to read and execute them, so that is
    // checked first, and a tree it could not use is copied and given to it instead.
    QString copyClis() {
        const QString cli = m_home + QStringLiteral("/cli");
        if (!QDir().mkpath(cli) || !own(cli, 0755))
            return QStringLiteral("cannot create %1").arg(cli);
        QElapsedTimer timer;
        timer.start();
        for (const QString &bin :
             {QStringLiteral(FLOTILLA_TEST_CLAUDE_BIN), QStringLiteral(FLOTILLA_TEST_CODEX_BIN)}) {
            // <src>/third_party/<cli>/node_modules/.bin/<name> -> <src>/third_party/<cli>
            const QString from =
                QDir::cleanPath(QFileInfo(bin).dir().absoluteFilePath(QStringLiteral("../..")));
            const QString target = cli + QLatin1Char('/') + QFileInfo(from).fileName();
            QString out;
            if (!othersCanUse(from) || run("cp", words("-a --link") << from << target, &out) != 0) {
                QDir(target).removeRecursively();
                if (run("cp", words("-a") << from << target, &out) != 0 ||
                    run("chown",
                        words("-R") << QStringLiteral("%1:%2").arg(m_uid).arg(m_gid) << target,
                        &out) != 0)
                    return QStringLiteral("cannot copy %1 to %2: %3").arg(from, target, out);
            }
        }
        m_copyMs = timer.elapsed();
        return {};
    }

    // Whether a stranger account can use the tree: read every file, search every directory and
    // run what the owner may run.
    static bool othersCanUse(const QString &tree) {
        QString out;
        // The outer parentheses: -print would otherwise bind to the last alternative only.
        return run("find",
                   QStringList{tree} << words("( ( -type d ! -perm -o=rx ) -o ( ! -type l "
                                              "! -perm -o=r ) -o ( -type f -perm -u=x ! "
                                              "-perm -o=x ) ) -print -quit"),
                   &out) == 0 &&
               out.isEmpty();
    }

    QString checkCli(const QString &bin) {
        QString out;
        // runuser keeps root's environment; the CLIs look in $HOME, which must be the account's.
        if (run("runuser",
                words("-u") << m_user << words("-- env") << QStringLiteral("HOME=") + m_home << bin
                            << words("--version"),
                &out) != 0)
            return QStringLiteral("%1 --version as %2 failed: %3").arg(bin, m_user, out);
        return {};
    }

    QString startSshd() {
        if (!QFileInfo::exists(QStringLiteral("/run/sshd")) &&
            !QDir().mkpath(QStringLiteral("/run/sshd")))
            return QStringLiteral("cannot create /run/sshd (sshd's privilege separation dir)");
        for (const QString &key : {QStringLiteral("host_key"), QStringLiteral("client_key")}) {
            QString out;
            if (run("ssh-keygen",
                    words("-q -t ed25519 -C flotilla-test -N")
                        << QString() << QStringLiteral("-f") << path(key),
                    &out) != 0)
                return QStringLiteral("ssh-keygen failed: ") + out;
        }
        // sshd reads the authorized keys with the account's rights: it must reach that one file.
        const QString authorized = path(QStringLiteral("authorized"));
        if (::chmod(QFile::encodeName(m_dir.path()).constData(), 0711) != 0 ||
            !writeFile(authorized, readFile(path(QStringLiteral("client_key.pub")))) ||
            ::chmod(QFile::encodeName(authorized).constData(), 0644) != 0)
            return QStringLiteral("cannot write the authorized keys");
        const QString kAddr = QLatin1String(kAddress);
        QTcpServer probe;
        if (!probe.listen(QHostAddress(kAddr), 0))
            return QStringLiteral("cannot listen on %1: %2").arg(kAddr, probe.errorString());
        m_port = probe.serverPort();
        probe.close();
        const auto clientConfig = [&](const QString &knownHosts) {
            return QStringLiteral("Host *\n  IdentityFile %1\n  IdentitiesOnly yes\n"
                                  "  IdentityAgent none\n  UserKnownHostsFile %2\n"
                                  "  GlobalKnownHostsFile /dev/null\n")
                .arg(path(QStringLiteral("client_key")), path(knownHosts))
                .toUtf8();
        };
        const QString sshdConfig =
            QStringLiteral("ListenAddress %1\nPort %2\nHostKey %3\nAuthorizedKeysFile %4\n"
                           "PidFile none\nUsePAM no\nStrictModes no\nPermitRootLogin no\n"
                           "AllowUsers %5\nPubkeyAuthentication yes\nPasswordAuthentication no\n"
                           "KbdInteractiveAuthentication no\nAllowTcpForwarding yes\n"
                           "AllowStreamLocalForwarding yes\nX11Forwarding no\nPrintMotd no\n"
                           "PrintLastLog no\nLogLevel VERBOSE\nMaxSessions 64\nMaxStartups 64\n")
                .arg(kAddr)
                .arg(m_port)
                .arg(path(QStringLiteral("host_key")), authorized, m_user);
        const QByteArray known = QStringLiteral("[%1]:%2 ").arg(kAddr).arg(m_port).toUtf8() +
                                 readFile(path(QStringLiteral("host_key.pub"))).trimmed() + '\n';
        if (!writeFile(path(QStringLiteral("known_hosts")), known) ||
            !writeFile(path(QStringLiteral("known_hosts_empty")), {}) ||
            !writeFile(sshConfig(), clientConfig(QStringLiteral("known_hosts"))) ||
            !writeFile(sshConfigWithoutHostKey(),
                       clientConfig(QStringLiteral("known_hosts_empty"))) ||
            !writeFile(path(QStringLiteral("sshd_config")), sshdConfig.toUtf8()))
            return QStringLiteral("cannot write the ssh configs in %1").arg(m_dir.path());
        m_sshd.setProcessChannelMode(QProcess::MergedChannels);
        m_sshd.start(QString::fromLatin1(SshServer::kSshd),
                     {QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"),
                      path(QStringLiteral("sshd_config"))});
        const QByteArray ready =
            QStringLiteral("Server listening on %1 port %2").arg(kAddr).arg(m_port).toUtf8();
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

    // userdel refuses an account with processes, so they go first. What the CLIs leave in the
    // shared temp dirs (codex: /tmp/codex-daemon-<uid>) goes too: the next account may get the uid.
    static void removeAccount(const QString &name) {
        run("pkill", words("-KILL -u") << name);
        (void)QTest::qWaitFor([&] { return run("pgrep", words("-u") << name) == 1; }, 5000);
        run("find", words("/tmp /var/tmp /dev/shm -xdev -mindepth 1 -maxdepth 1 -user")
                        << name << words("-exec rm -rf {} +"));
        const passwd *pw = ::getpwnam(name.toLocal8Bit().constData());
        const QString home = pw ? QString::fromLocal8Bit(pw->pw_dir) : QString();
        // Its only complaint without force is the missing mail spool, which no account here has.
        if (run("userdel", words("-r") << name) != 0 && ::getpwnam(name.toLocal8Bit().constData()))
            run("userdel", words("-f -r") << name);
        if (home.startsWith(QStringLiteral("/home/flrm")))
            QDir(home).removeRecursively();
    }

    // Accounts of test processes that died before their destructor ran (a crash, a timeout kill).
    static void removeStaleAccounts() {
        QStringList stale;
        ::setpwent();
        while (const passwd *pw = ::getpwent()) {
            const QString gecos = QString::fromLocal8Bit(pw->pw_gecos);
            const QString prefix = QStringLiteral("flotilla test pid ");
            if (!QByteArray(pw->pw_name).startsWith("flrm") || !gecos.startsWith(prefix))
                continue;
            const pid_t pid = gecos.mid(prefix.size()).toInt();
            if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH)
                stale << QString::fromLocal8Bit(pw->pw_name);
        }
        ::endpwent();
        for (const QString &name : std::as_const(stale))
            removeAccount(name);
    }

    bool own(const QString &file, mode_t mode) const {
        const QByteArray native = QFile::encodeName(file);
        return ::chown(native.constData(), m_uid, m_gid) == 0 &&
               ::chmod(native.constData(), mode) == 0;
    }
    static QStringList words(const char *text) {
        return QString::fromLatin1(text).split(QLatin1Char(' '));
    }
    // Exit code (-1: did not finish in 10 s); `out` gets stdout and stderr.
    static int run(const char *program, const QStringList &args, QString *out = nullptr) {
        QProcess process;
        process.setProcessChannelMode(QProcess::MergedChannels);
        process.start(QString::fromLatin1(program), args);
        const bool done = process.waitForFinished(10000);
        if (out)
            *out = QString::fromLocal8Bit(process.readAll()).trimmed();
        if (!done) {
            process.kill();
            process.waitForFinished(1000);
            return -1;
        }
        return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
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

    QTemporaryDir m_dir;
    QProcess m_sshd;
    QByteArray m_log;
    QString m_user;
    QString m_home;
    uid_t m_uid = 0;
    gid_t m_gid = 0;
    quint16 m_port = 0;
    qint64 m_copyMs = -1;
};

} // namespace flotilla::test
