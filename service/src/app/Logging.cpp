#include "app/Logging.h"

Q_LOGGING_CATEGORY(lcApp, "flotilla.app", QtInfoMsg)
Q_LOGGING_CATEGORY(lcHttp, "flotilla.http", QtInfoMsg)
Q_LOGGING_CATEGORY(lcWs, "flotilla.ws", QtInfoMsg)
Q_LOGGING_CATEGORY(lcAgents, "flotilla.agents", QtInfoMsg)
Q_LOGGING_CATEGORY(lcStorage, "flotilla.storage", QtInfoMsg)
