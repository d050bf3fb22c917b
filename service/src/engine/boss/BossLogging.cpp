#include "boss/BossLogging.h"

Q_LOGGING_CATEGORY(lcBoss, "flotilla.boss", QtInfoMsg)
