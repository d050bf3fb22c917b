#include "hooks/HooksLogging.h"

Q_LOGGING_CATEGORY(lcHooks, "flotilla.hooks", QtInfoMsg)
