#pragma once
// Running exec tasks (TasksModel): the list, the selected task's live output, and Kill
// (DELETE /api/exec/tasks/:id through MonitorSession::killTask).

#include <QWidget>

class QListView;
class QPlainTextEdit;
class QPushButton;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class TasksPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TasksPanel)
public:
    explicit TasksPanel(MonitorSession &session, QWidget *parent = nullptr);

    QString currentTaskId() const;
    void killCurrent();
    QListView *list() const { return m_list; }
    QPlainTextEdit *outputView() const { return m_output; }

private:
    void showCurrent();

    MonitorSession &m_session;
    QListView *m_list;
    QPlainTextEdit *m_output;
    QPushButton *m_kill;
    QString m_shownTask;
    int m_shownLength = 0;
    QString m_shownTail; // to notice when the bounded output dropped its head
};

} // namespace flotilla::monitor::ui
