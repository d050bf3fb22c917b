#pragma once
// The boss module's logging category: boss teams, delegation, delegated tasks,
// report-task and work plans. Enable with QT_LOGGING_RULES="flotilla.boss.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcBoss)
