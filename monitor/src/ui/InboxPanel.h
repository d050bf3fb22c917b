#pragma once
// The inbox as a dock: what needs the user across agents and services (InboxModel), keyboard
// first. Up/Down (or J/K) moves, G grants, D denies, A grants and remembers for this
// agent, P for the project; Enter opens a request's dialog, or shows a failed or finished agent.
// Buttons do the same for the mouse. Items wrap to two lines; below them the selected request
// reads as what it will change (RequestPreview: a Write's content, an Edit's diff, a command).

#include <QWidget>

class QListView;
class QPushButton;
class QTextBrowser;

namespace flotilla::monitor {
class InboxModel;
class MonitorSession;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class InboxPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InboxPanel)
public:
    explicit InboxPanel(InboxModel &inbox, QWidget *parent = nullptr);

    QListView *list() const { return m_list; }
    QTextBrowser *preview() const { return m_preview; }
    // Answers the selected item if it is a permission request; `remember` as
    // InboxModel::answer. False when nothing answerable is selected.
    bool answerSelected(bool granted, const QString &remember = {});
    void selectNext(int step); // wraps around

Q_SIGNALS:
    // Enter or double-click: show that agent (of that session).
    void agentActivated(flotilla::monitor::MonitorSession *session, const QString &agentId);
    // Enter or double-click on a permission request: the user asks for its dialog.
    void requestOpened(int row);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void updateButtons();
    void updatePreview();
    int currentRow() const;

    InboxModel &m_inbox;
    QListView *m_list;
    QTextBrowser *m_preview;
    QPushButton *m_grant;
    QPushButton *m_deny;
    QPushButton *m_always;
};

} // namespace flotilla::monitor::ui
