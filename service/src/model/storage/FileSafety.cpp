#include "storage/FileSafety.h"

#include "protocol/WireNames.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

namespace flotilla {

Error storageFullError(const QString &what) {
    return {ErrorKind::Unavailable, kStorageFullCode,
            QStringLiteral("storage full: %1; nothing was saved, free space in the data "
                           "directory and retry")
                .arg(what)};
}

namespace {
// Qt reports ENOSPC (and EDQUOT) from a write as ResourceError.
Error fileError(const QString &what, const QSaveFile &file) {
    const QString detail = what + QStringLiteral(": ") + file.errorString();
    if (file.error() == QFileDevice::ResourceError)
        return storageFullError(detail);
    return Error::internal(wire::code::Internal, detail);
}
} // namespace

Status writeJsonAtomically(const QString &path, const QJsonObject &object) {
    QSaveFile file(path);
    // Unbuffered: with Qt's write buffer a failed flush inside commit() (ENOSPC) went unnoticed
    // in Qt 6.4 and the short temp file replaced the good one.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return fileError(QStringLiteral("cannot write ") + path, file);
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QByteArray bytes = QJsonDocument(object).toJson(QJsonDocument::Indented);
    if (file.write(bytes) != bytes.size()) {
        Error e = fileError(QStringLiteral("cannot write ") + path, file);
        file.cancelWriting();
        return e;
    }
    if (!file.commit())
        return fileError(QStringLiteral("cannot save ") + path, file);
    return std::nullopt;
}

QString setAside(const QString &path) {
    const QString stamp =
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    QString target = path + QStringLiteral(".corrupt-") + stamp;
    if (!QFile::rename(path, target))
        return {};
    return target;
}

} // namespace flotilla
