#include "notify/NotifyLogging.h"

Q_LOGGING_CATEGORY(lcNotify, "flotilla.notify", QtInfoMsg)
