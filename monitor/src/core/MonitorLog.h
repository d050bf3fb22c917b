#pragma once
// Logging categories of the monitor's core: flotilla.monitor, and flotilla.monitor.ssh for the
// ssh tunnels of ssh:// services (what ssh says on stderr goes there too).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcMonitor)
Q_DECLARE_LOGGING_CATEGORY(lcSsh)
