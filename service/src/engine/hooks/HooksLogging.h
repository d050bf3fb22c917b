#pragma once
// The hooks' logging category: hooks stored and removed, each run started and finished (debug),
// runs that failed to start, timed out or were dropped from a full queue (warning). Never logs a
// hook's stdin (the event) or its output. Enable with QT_LOGGING_RULES="flotilla.hooks.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHooks)
