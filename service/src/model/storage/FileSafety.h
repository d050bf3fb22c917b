#pragma once
// Small helpers for durable files: atomic JSON writes and setting damaged files aside.

#include "base/Error.h"

#include <QJsonObject>
#include <QString>

namespace flotilla {

// Error code of a write refused because the data dir's file system is full (HTTP 503, see
// docs/api.md). A wire name: it belongs beside the others in shared/protocol/WireNames.h.
inline constexpr QLatin1String kStorageFullCode{"storage_full"};

// A 503 `storage_full` error: nothing of the write was kept, retrying after space is freed works.
Error storageFullError(const QString &what);

// Writes the document through QSaveFile (write to a temp file, fsync, rename) with mode 0600.
Status writeJsonAtomically(const QString &path, const QJsonObject &object);

// Renames `path` to `path.corrupt-<UTC timestamp>` and returns the new name (empty on failure).
QString setAside(const QString &path);

} // namespace flotilla
