#include "app/TokenFile.h"

#include "base/PrivateFile.h"
#include "protocol/WireNames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flotilla {

namespace {

constexpr qsizetype kTokenBytes = 32; // 256 bits
constexpr qint64 kMaxFileBytes = 4096;

Error refused(const QString &path, const QString &why) {
    return Error::badRequest(wire::code::InvalidValue,
                             QStringLiteral("token file %1 %2").arg(path, why));
}

QString systemError(int error) {
    return QString::fromLocal8Bit(std::strerror(error));
}

QByteArray freshToken() {
    quint32 words[kTokenBytes / sizeof(quint32)];
    QRandomGenerator::system()->fillRange(words);
    return QByteArray(reinterpret_cast<const char *>(words), sizeof(words)).toHex();
}

// Creates `path` with a new token. Ok(false): someone else created it first (read theirs).
Result<bool> create(const QString &path) {
    const QFileInfo info(path);
    const QString dir = info.absolutePath();
    const bool dirExisted = QFileInfo::exists(dir);
    if (!QDir().mkpath(dir))
        return refused(path,
                       QStringLiteral("cannot be created: cannot create directory %1").arg(dir));
    if (!dirExisted) // e.g. ~/.config/flotilla: nobody else needs to list it
        QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                       QFileDevice::ExeOwner);
    const QByteArray temp =
        QFile::encodeName(dir + QStringLiteral("/.") + info.fileName() + QStringLiteral(".new-") +
                          QString::number(QRandomGenerator::system()->generate64(), 16));
    if (const QString why = createPrivateFile(QFile::decodeName(temp), freshToken() + '\n', true);
        !why.isEmpty())
        return refused(path, QStringLiteral("cannot be created: %1").arg(why));
    // link() never replaces: of two services starting at once, one token wins and both read it.
    const int linked = ::link(temp.constData(), QFile::encodeName(path).constData());
    const int linkError = errno;
    ::unlink(temp.constData());
    if (linked != 0 && linkError == EEXIST)
        return false;
    if (linked != 0)
        return refused(path, QStringLiteral("cannot be created: %1").arg(systemError(linkError)));
    const int dirFd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY);
    if (dirFd >= 0) { // the new name survives a crash
        ::fsync(dirFd);
        ::close(dirFd);
    }
    return true;
}

Result<QByteArray> read(const QString &path) {
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return refused(path, QStringLiteral("cannot be read: %1").arg(systemError(errno)));
    struct stat st {};
    QByteArray content;
    QString problem;
    if (::fstat(fd, &st) != 0) {
        problem = QStringLiteral("cannot be read: %1").arg(systemError(errno));
    } else if (!S_ISREG(st.st_mode)) {
        problem = QStringLiteral("is not a regular file");
    } else if (st.st_uid != ::geteuid()) {
        problem = QStringLiteral("belongs to another user (uid %1)").arg(st.st_uid);
    } else if ((st.st_mode & 077) != 0) {
        problem = QStringLiteral("is readable or writable by other users (mode %1); "
                                 "run: chmod 600 %2")
                      .arg(QString::number(st.st_mode & 0777, 8), path);
    } else if (st.st_size > kMaxFileBytes) {
        problem = QStringLiteral("is larger than %1 bytes").arg(kMaxFileBytes);
    } else {
        QFile f;
        if (!f.open(fd, QIODevice::ReadOnly, QFileDevice::DontCloseHandle))
            problem = QStringLiteral("cannot be read: %1").arg(f.errorString());
        else
            content = f.read(kMaxFileBytes);
    }
    ::close(fd);
    if (!problem.isEmpty())
        return refused(path, problem);
    const QByteArray token = content.trimmed();
    if (token.isEmpty())
        return refused(path, QStringLiteral("is empty"));
    for (char ch : token) {
        const auto u = static_cast<unsigned char>(ch);
        if (u <= 0x20 || u == 0x7f)
            return refused(path,
                           QStringLiteral("holds whitespace or control characters in the token"));
    }
    return token;
}

} // namespace

Result<TokenFileResult> loadOrCreateTokenFile(const QString &path) {
    TokenFileResult out;
    if (!QFileInfo::exists(path) && !QFileInfo(path).isSymLink()) {
        auto made = create(path);
        if (!made)
            return made.error();
        out.created = *made;
    }
    auto token = read(path);
    if (!token)
        return token.error();
    out.token = *token;
    return out;
}

} // namespace flotilla
