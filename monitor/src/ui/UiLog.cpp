#include "ui/UiLog.h"

namespace flotilla::monitor::ui {
Q_LOGGING_CATEGORY(lcUi, "flotilla.monitor.ui")
} // namespace flotilla::monitor::ui
