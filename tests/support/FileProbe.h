#pragma once
// What the security suites look at in files: a file's content and its permission bits.

#include <QByteArray>
#include <QFile>
#include <QString>

#include <sys/stat.h>

namespace flotilla::test {

// The permission bits (07777) of `path`, -1 when it cannot be stat'ed.
inline int modeOf(const QString &path) {
    struct stat st {};
    return ::stat(QFile::encodeName(path).constData(), &st) == 0 ? int(st.st_mode & 07777) : -1;
}

// The whole content of `path`, empty when it cannot be read.
inline QByteArray readAll(const QString &path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace flotilla::test
