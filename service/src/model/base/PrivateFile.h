#pragma once
// Writing a file only its user may read (the service's token file, agents' header files): created
// new (never through an existing file or a link someone put there), mode 0600, all of it or
// nothing.

#include <QByteArray>
#include <QString>

namespace flotilla {

// Creates `path`, which must not exist, with mode 0600 and `content`; with `sync`, fsyncs it.
// Empty on success, else the system's reason; a partly written file is removed.
QString createPrivateFile(const QString &path, const QByteArray &content, bool sync);

} // namespace flotilla
