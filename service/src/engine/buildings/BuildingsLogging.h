#pragma once
// The buildings module's logging category: each building started, stopped, crashed and
// restarted (with its delay). Enable with QT_LOGGING_RULES="flotilla.buildings.debug=true". A
// building's command line and environment are logged masked (never a secret's value); its output
// is not logged at all (GET /api/buildings/:id/logs keeps it).

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcBuildings)
