#pragma once
// The exec module's logging category, defined in ExecService.cpp.
// QT_LOGGING_RULES="flotilla.exec.debug=true" shows every task start and end.

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcExec)
