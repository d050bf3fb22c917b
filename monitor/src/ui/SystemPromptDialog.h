#pragma once
// Edit the global system prompt (appended to every agent's prompt; agents pick it up at their
// next turn boundary). Loads the current prompt from the service when opened.

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class SystemPromptDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SystemPromptDialog)
public:
    explicit SystemPromptDialog(MonitorSession &session, QWidget *parent = nullptr);

    void accept() override;
    QPlainTextEdit *editor() const { return m_edit; }

private:
    MonitorSession &m_session;
    QPlainTextEdit *m_edit;
    QLabel *m_state;
};

} // namespace flotilla::monitor::ui
