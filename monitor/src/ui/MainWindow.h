#pragma once
// The composition of the monitor's window: agents table | agent pane in a splitter, docks for
// running tasks, notifications and the boss view, menus with the shortcuts, the connection
// state in the status bar. Behaviour lives in the parts; this class only wires them and keeps
// the layout (geometry, dock state, splitter sizes, table header) in QSettings.

#include "client/ServiceClient.h"

#include <QMainWindow>
#include <memory>

class QDockWidget;
class QLabel;
class QSplitter;
class QStackedWidget;

namespace flotilla::monitor {
class InboxModel;
class MonitorSession;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class AgentActions;
class AgentPane;
class AgentsView;
class BossPanel;
class ConnectionStatusLabel;
class CredentialStore;
class ExtraServices;
class HostsDialog;
class InboxPanel;
class LibraryWindow;
class NotificationsPanel;
class PermissionPrompter;
class TasksPanel;
class TrayNotifier;

class MainWindow final : public QMainWindow {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MainWindow)
public:
    MainWindow(MonitorSession &session, CredentialStore &credentials, QWidget *parent = nullptr);
    ~MainWindow() override;

    void connectTo(const client::Endpoint &endpoint);
    void showConnectDialog();
    void saveLayout() const;

    AgentsView *agentsView() const { return m_agents; }
    // The pane of the selected agent's service (the first service's when none is selected).
    AgentPane *agentPane() const;
    // More services in this window (File > Add service...), and the one an agent belongs to.
    ExtraServices &extraServices() const { return *m_extra; }
    MonitorSession *sessionOf(const QString &agentId) const;
    TasksPanel *tasksPanel() const { return m_tasks; }
    BossPanel *bossPanel() const { return m_boss; }
    NotificationsPanel *notificationsPanel() const { return m_notifications; }
    InboxPanel *inboxPanel() const { return m_inboxPanel; }
    InboxModel *inbox() const { return m_inbox; }
    AgentActions *agentActions() const { return m_actions; }
    PermissionPrompter *permissions() const { return m_permissions; }
    QList<QAction *> allActions() const;
    // The Library window (classes, skills, prompts, hooks, buildings of the first service),
    // made on first use; showLibrary() also shows and raises it.
    LibraryWindow *library();
    void showLibrary();
    // The Hosts view of the first service (View > Hosts), made on first use; showHosts() also
    // shows and raises it.
    HostsDialog *hosts();
    void showHosts();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    QDockWidget *addDock(QWidget *content, const QString &title, const QString &name);
    void buildMenus();
    void restoreLayout();
    void updateCounts();
    void showShortcuts();
    void showAddServiceDialog();
    void showAgent(const QString &agentId); // in its service's pane

    MonitorSession &m_session;
    CredentialStore &m_credentials;
    AgentsView *m_agents;
    AgentPane *m_pane; // the first service's
    QStackedWidget *m_panes;
    QSplitter *m_split;
    QString m_restoreAgent; // selected when the window last closed; until the first snapshot
    TasksPanel *m_tasks;
    NotificationsPanel *m_notifications;
    BossPanel *m_boss;
    InboxModel *m_inbox;
    InboxPanel *m_inboxPanel;
    AgentActions *m_actions;
    PermissionPrompter *m_permissions;
    TrayNotifier *m_tray;
    ConnectionStatusLabel *m_connection;
    std::unique_ptr<ExtraServices> m_extra; // destroyed before the widgets it placed
    LibraryWindow *m_library = nullptr;     // a child window, made on first use
    HostsDialog *m_hosts = nullptr;         // likewise
    QLabel *m_counts;
    QList<QAction *> m_windowActions;
    QList<QDockWidget *> m_defaultDocks; // inbox, then the tabs under it: their default sizes
};

} // namespace flotilla::monitor::ui
