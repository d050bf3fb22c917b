#include "buildings/BuildingsLogging.h"

Q_LOGGING_CATEGORY(lcBuildings, "flotilla.buildings", QtInfoMsg)
