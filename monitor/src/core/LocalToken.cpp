#include "core/LocalToken.h"

#include "core/MonitorLog.h"

#include <QFile>
#include <QHostAddress>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flotilla::monitor {

namespace {

// flotillad writes 64 hex digits and a newline; anything much larger is not a token file.
constexpr qint64 kMaxTokenFileBytes = 4096;

void warnIgnored(const QString &path, const QString &reason) {
    qCWarning(lcMonitor).noquote() << "ignoring the local service token file" << path
                                   << QString(QLatin1Char('(') + reason + QLatin1Char(')'));
}

QString errorText(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

QByteArray readTokenFile(const QString &path) {
    // Opened first and checked through the descriptor (fstat), so the file checked is the file
    // read, even if the path is swapped in between. O_NONBLOCK: a FIFO planted there must not
    // hang the monitor in open(); fstat then refuses it as not a regular file.
    const int fd =
        ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT) // the common case of a service without --token-file: no noise
            qCDebug(lcMonitor).noquote() << "no local service token file at" << path;
        else
            warnIgnored(path, QStringLiteral("cannot open it: ") + errorText(error));
        return {};
    }
    QFile file;
    file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle); // closes fd when done

    struct stat st {};
    QString refusal;
    if (::fstat(fd, &st) != 0)
        refusal = QStringLiteral("cannot stat it: ") + errorText(errno);
    else if (!S_ISREG(st.st_mode))
        refusal = QStringLiteral("not a regular file");
    else if (st.st_uid != ::geteuid())
        refusal = QStringLiteral("owned by uid %1, not by the current user").arg(st.st_uid);
    else if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        // Another local user may have read it: the same rule as flotillad's, so the monitor
        // never trusts a token the service itself would refuse. The user fixes it with chmod.
        refusal =
            QStringLiteral("mode %1 gives group/other access; run chmod 600 on it")
                .arg(QString::number(st.st_mode & 07777, 8).rightJustified(4, QLatin1Char('0')));
    else if (st.st_size > kMaxTokenFileBytes)
        refusal = QStringLiteral("larger than %1 bytes").arg(kMaxTokenFileBytes);
    if (!refusal.isEmpty()) {
        warnIgnored(path, refusal);
        return {};
    }

    QByteArray token = file.read(kMaxTokenFileBytes).trimmed();
    if (token.isEmpty())
        warnIgnored(path, QStringLiteral("it is empty"));
    return token;
}

} // namespace

QString localTokenPath(const QString &configDir) {
    return configDir + QStringLiteral("/flotilla/token");
}

bool isLocalService(const QUrl &url) {
    const QString host = url.host(); // lower case, without the brackets of [::1]
    if (host == QLatin1String("localhost"))
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback(); // ::1 and all of 127.0.0.0/8
}

QByteArray resolveServiceToken(const QUrl &url, const QByteArray &explicitToken,
                               const QString &configDir) {
    if (!explicitToken.isEmpty())
        return explicitToken;
    // The local file is never offered to another machine: that would hand this machine's
    // secret to whoever runs (or impersonates) the remote service.
    if (configDir.isEmpty() || !isLocalService(url))
        return {};
    const QString path = localTokenPath(configDir);
    QByteArray token = readTokenFile(path);
    if (!token.isEmpty())
        qCInfo(lcMonitor).noquote() << "using the local service token from" << path;
    return token;
}

} // namespace flotilla::monitor
