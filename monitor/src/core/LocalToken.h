#pragma once
// The token of a flotillad on this machine, read from the file `flotillad --token-file` keeps
// (the packaged unit uses ~/.config/flotilla/token), so a local monitor connects without the
// user copying the token anywhere. Pure functions of their arguments (the config dir is passed
// in), so tests run them on temp dirs.

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace flotilla::monitor {

// <configDir>/flotilla/token; configDir is QStandardPaths::GenericConfigLocation
// ($XDG_CONFIG_HOME, default ~/.config).
QString localTokenPath(const QString &configDir);

// True when the URL's host is this machine: localhost, ::1 or any 127.x address.
bool isLocalService(const QUrl &url);

// The token to connect to `url` with. A token the user gave (`explicitToken`, non-empty) always
// wins. Otherwise, for a local service only, the trimmed content of localTokenPath(configDir)
// when that is a regular file of the current user with no group/other permission bits (the
// service's own rule); else empty. An empty configDir turns the lookup off. Refusals are logged
// (path and reason, never the token) to flotilla.monitor.
QByteArray resolveServiceToken(const QUrl &url, const QByteArray &explicitToken,
                               const QString &configDir);

} // namespace flotilla::monitor
