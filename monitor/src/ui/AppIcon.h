#pragma once
// The application icon: the installed hicolor icon (packaging installs it as
// invalid.flotilla.Monitor), or a drawn stand-in when running from the build tree.

#include <QIcon>

namespace flotilla::monitor::ui {
QIcon appIcon();
} // namespace flotilla::monitor::ui
