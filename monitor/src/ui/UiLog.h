#pragma once
// The monitor UI's logging category: QT_LOGGING_RULES="flotilla.monitor.ui.debug=true".

#include <QLoggingCategory>

namespace flotilla::monitor::ui {
Q_DECLARE_LOGGING_CATEGORY(lcUi)
} // namespace flotilla::monitor::ui
