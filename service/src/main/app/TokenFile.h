#pragma once
// `--token-file PATH`: the service token kept in a file only its user can read. A missing file
// is created with a fresh random token, so an installed service (the systemd unit passes
// ~/.config/flotilla/token) needs a token out of the box, and local clients of the same user
// (the monitor) can read it.

#include "base/Error.h"

#include <QByteArray>
#include <QString>

namespace flotilla {

struct TokenFileResult {
    QByteArray token;
    bool created = false; // the file did not exist and was made now
};

// Reads the token from `path`, or creates the file (parent directories 0700, file 0600, 256
// random bits as 64 hex digits, written to a temporary file and linked into place, so a
// concurrent reader never sees a partial token and two starters agree on one token).
// Refused, with a message that says why: a file that other users could read or write (any
// group/other permission bit), not a regular file, not owned by this user, empty or with
// whitespace or control characters inside the token.
Result<TokenFileResult> loadOrCreateTokenFile(const QString &path);

} // namespace flotilla
