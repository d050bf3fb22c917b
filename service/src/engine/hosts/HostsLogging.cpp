#include "hosts/HostsLogging.h"

Q_LOGGING_CATEGORY(lcHosts, "flotilla.hosts", QtInfoMsg)
