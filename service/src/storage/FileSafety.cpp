#include "storage/FileSafety.h"

#include "protocol/WireNames.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QSaveFile>

namespace flotilla {

Status writeJsonAtomically(const QString &path, const QJsonObject &object) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return Error::internal(wire::code::Internal,
                               QStringLiteral("cannot write %1: %2").arg(path, file.errorString()));
    }
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        return Error::internal(wire::code::Internal,
                               QStringLiteral("cannot save %1: %2").arg(path, file.errorString()));
    }
    return std::nullopt;
}

QString setAside(const QString &path) {
    const QString stamp =
        QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    const QString target = path + QStringLiteral(".corrupt-") + stamp;
    if (!QFile::rename(path, target))
        return {};
    return target;
}

} // namespace flotilla
