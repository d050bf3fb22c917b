#pragma once
// A command's argv as the user types it: one line split like a POSIX shell splits words (quotes
// and backslashes, no expansion: the service runs argv without a shell), or one argument per
// line. And back, so an existing hook's or building's command is shown the way it was entered.

#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla::monitor {

// Words of `line`: blanks separate them; '...' keeps everything literally; "..." keeps all but
// \" \\ \$ \` (their backslash goes); a backslash outside quotes keeps the next character. No
// expansion of any kind. Empty optional: an unterminated quote or a trailing backslash.
std::optional<QStringList> splitCommandLine(const QString &line);
// The inverse of splitCommandLine: words with blanks, quotes or backslashes (or empty ones) are
// single-quoted, so splitting the result gives `argv` back.
QString joinCommandLine(const QStringList &argv);
// One argument per line; blank lines are skipped (an empty argument needs the one-line form).
QStringList splitArgumentLines(const QString &text);

} // namespace flotilla::monitor
