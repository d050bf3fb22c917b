#pragma once
// Notifications (agent_notification, newest first) as a list; the tray shows them as they come.

#include <QWidget>

class QListView;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class NotificationsPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NotificationsPanel)
public:
    explicit NotificationsPanel(MonitorSession &session, QWidget *parent = nullptr);
    QListView *list() const { return m_list; }

Q_SIGNALS:
    void agentActivated(const QString &agentId); // double-click: show that agent

private:
    MonitorSession &m_session;
    QListView *m_list;
};

} // namespace flotilla::monitor::ui
