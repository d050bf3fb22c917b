#pragma once
// One logging category per module (docs/style.md). Enable with QT_LOGGING_RULES, e.g.
// QT_LOGGING_RULES="flotilla.http.debug=true".
//
// In base/, under every other layer: storage, domain, http, ws and agents all log, and none of
// them may include the composition root (app/) to do so.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcApp)
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcWs)
Q_DECLARE_LOGGING_CATEGORY(lcAgents)
Q_DECLARE_LOGGING_CATEGORY(lcStorage)
Q_DECLARE_LOGGING_CATEGORY(lcSandbox)

#include <QString>

namespace flotilla {
// Keeps secrets out of logs whatever QT_LOGGING_RULES says: Qt 6.4's own qt.httpserver debug
// output prints whole requests, X-Auth-Token included, so that category's debug level is pinned
// off. And every message is escaped (escapeForLog) before Qt's handler prints it: logs quote
// what requests carry (paths, commands, names), and a terminal or journal reader must not run
// an escape sequence someone put there.
void installSecretSafeLogging();

// C0 controls, DEL and C1 controls as \xNN (\n, \r, \t by name), everything else as it is.
QString escapeForLog(const QString &text);
} // namespace flotilla
