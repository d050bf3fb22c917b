#pragma once
// One logging category per module (STYLE.md #14). Enable with QT_LOGGING_RULES, e.g.
// QT_LOGGING_RULES="flotilla.http.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcApp)
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcWs)
Q_DECLARE_LOGGING_CATEGORY(lcAgents)
Q_DECLARE_LOGGING_CATEGORY(lcStorage)
