#include "web/WebLogging.h"

Q_LOGGING_CATEGORY(lcWeb, "flotilla.web", QtInfoMsg)
