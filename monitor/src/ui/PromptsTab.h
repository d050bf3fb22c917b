#pragma once
// The Library's saved prompts: the list, and an editor for the selected one: name, text and
// whom it is offered to (everyone, the agents of one class, or one agent). The message box of
// an agent offers the prompts that apply to it.

#include "ui/LibraryTab.h"

#include <QJsonObject>

class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class PromptsTab final : public LibraryTab {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PromptsTab)
public:
    explicit PromptsTab(MonitorSession &session, QWidget *parent = nullptr);

    void newPrompt();
    void save();
    void deleteCurrent();

private:
    void load(const QJsonObject &prompt);
    void fillTargets(); // classes or agents, after the scope
    QJsonObject scope() const;

    MonitorSession &m_session;
    QString m_idShown; // empty: a new prompt
    QLineEdit *m_name;
    QPlainTextEdit *m_text;
    QComboBox *m_scope;
    QComboBox *m_target;
    QPushButton *m_delete;
};

} // namespace flotilla::monitor::ui
