#pragma once
// Logging category of the monitor's core (flotilla.monitor).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcMonitor)
