#include "base/PrivateFile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace flotilla {

QString createPrivateFile(const QString &path, const QByteArray &content, bool sync) {
    const QByteArray native = QFile::encodeName(path);
    const int fd =
        ::open(native.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return QString::fromLocal8Bit(std::strerror(errno));
    qsizetype done = 0;
    int error = 0;
    while (done < content.size() && error == 0) {
        const ssize_t n = ::write(fd, content.constData() + done, size_t(content.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            error = n < 0 ? errno : EIO;
        else
            done += n;
    }
    if (error == 0 && sync && ::fsync(fd) != 0)
        error = errno;
    ::close(fd);
    if (error == 0)
        return {};
    ::unlink(native.constData());
    return QString::fromLocal8Bit(std::strerror(error));
}

} // namespace flotilla
