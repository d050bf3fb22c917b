#pragma once
// The history module's logging category: "flotilla.history".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcHistory)
