#pragma once
// Small helpers for durable files: atomic JSON writes and setting damaged files aside.

#include "domain/Error.h"

#include <QJsonObject>
#include <QString>

namespace flotilla {

// Writes the document through QSaveFile (write to a temp file, fsync, rename) with mode 0600.
Status writeJsonAtomically(const QString &path, const QJsonObject &object);

// Renames `path` to `path.corrupt-<UTC timestamp>` and returns the new name (empty on failure).
QString setAside(const QString &path);

} // namespace flotilla
