#pragma once
// Create or edit a building: name, working directory, command (one shell-like line, run without
// a shell), environment (KEY=value lines; secrets are substituted by the service as in exec),
// autostart, restart policy, url, and optionally the agent whose worktree it runs in. Stays
// open until the service accepts, showing its refusal.

#include "ui/LibraryDialog.h"

#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class BuildingDialog final : public LibraryDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BuildingDialog)
public:
    // `existing` empty: a new building (POST /api/buildings); else that one (PATCH).
    BuildingDialog(MonitorSession &session, const QJsonObject &existing, QWidget *parent = nullptr);
    void accept() override;

private:
    MonitorSession &m_session;
    QLineEdit *m_name;
    QLineEdit *m_cwd;
    QLineEdit *m_command;
    QPlainTextEdit *m_env;
    QCheckBox *m_autostart;
    QComboBox *m_restart;
    QLineEdit *m_url;
    QComboBox *m_agent;
};

} // namespace flotilla::monitor::ui
