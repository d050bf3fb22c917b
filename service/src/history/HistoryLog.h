#pragma once
// The history module's logging category (STYLE.md #14): "flotilla.history".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHistory)
