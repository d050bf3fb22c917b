#include "core/MonitorSession.h"
