#include "shaping/ShapingLogging.h"

Q_LOGGING_CATEGORY(lcShaping, "flotilla.shaping", QtInfoMsg)
