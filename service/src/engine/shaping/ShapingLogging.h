#pragma once
// The shaping module's logging category: classes, skills, instructions and the skill files each
// agent's CLI reads. Enable with QT_LOGGING_RULES="flotilla.shaping.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcShaping)
