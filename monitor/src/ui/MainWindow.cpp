#include "ui/MainWindow.h"

#include "core/InboxModel.h"
#include "core/MonitorSession.h"
#include "ui/AgentActions.h"
#include "ui/AgentPane.h"
#include "ui/AgentsView.h"
#include "ui/BossPanel.h"
#include "ui/ConnectDialog.h"
#include "ui/ConnectionStatusLabel.h"
#include "ui/CredentialStore.h"
#include "ui/ExtraServices.h"
#include "ui/HostsDialog.h"
#include "ui/InboxPanel.h"
#include "ui/LibraryWindow.h"
#include "ui/NotificationsPanel.h"
#include "ui/PermissionPrompter.h"
#include "ui/ShortcutsDialog.h"
#include "ui/TasksPanel.h"
#include "ui/TrayNotifier.h"
#include "ui/UiLog.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QLabel>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTableView>

namespace flotilla::monitor::ui {

namespace {
const QString kGeometry = QStringLiteral("window/geometry");
const QString kState = QStringLiteral("window/state");
const QString kSplitter = QStringLiteral("window/splitter");
const QString kHeader = QStringLiteral("window/agentsHeader");
// The agent selected when the window closed (ids are unique across services).
const QString kSelectedAgent = QStringLiteral("window/selectedAgent");
// Bump when docks change, so an old state is not applied. 3: the docks moved to one column on the
// right and the agents above the conversation; a layout the user changes after that is kept.
constexpr int kLayoutVersion = 3;
} // namespace

MainWindow::MainWindow(MonitorSession &session, CredentialStore &credentials, QWidget *parent)
    : QMainWindow(parent)
    , m_session(session)
    , m_credentials(credentials)
    , m_agents(new AgentsView(session.agents(), this))
    , m_pane(new AgentPane(session, this))
    , m_panes(new QStackedWidget(this))
    , m_split(new QSplitter(Qt::Vertical, this))
    , m_tasks(new TasksPanel(session, this))
    , m_notifications(new NotificationsPanel(session, this))
    , m_boss(new BossPanel(session, this))
    , m_inbox(new InboxModel(this))
    , m_inboxPanel(new InboxPanel(*m_inbox, this))
    , m_actions(new AgentActions(session, *m_agents, this))
    , m_permissions(new PermissionPrompter(*m_inbox, this))
    , m_tray(new TrayNotifier(this))
    , m_connection(new ConnectionStatusLabel(session.client(), session.tunnel(), this))
    , m_counts(new QLabel(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Flotilla monitor"));
    m_split->setObjectName(QStringLiteral("mainSplitter"));
    m_split->addWidget(m_agents);
    m_panes->addWidget(m_pane);
    m_split->addWidget(m_panes);
    // The agents above, the conversation below: the table gets the width its columns need and
    // the conversation most of the window.
    m_split->setStretchFactor(0, 1);
    m_split->setStretchFactor(1, 3);
    m_split->setChildrenCollapsible(false);
    setCentralWidget(m_split);

    // One column on the right: what needs the user (the inbox) always in view, the rest (often
    // empty) as tabs under it, so nothing takes height from the conversation.
    QDockWidget *inbox = addDock(m_inboxPanel, tr("Inbox"), QStringLiteral("inboxDock"));
    QDockWidget *tasks = addDock(m_tasks, tr("Running tasks"), QStringLiteral("tasksDock"));
    QDockWidget *notes =
        addDock(m_notifications, tr("Notifications"), QStringLiteral("notificationsDock"));
    QDockWidget *boss = addDock(m_boss, tr("Boss"), QStringLiteral("bossDock"));
    m_inbox->addSession(&m_session, tr("this service"));
    splitDockWidget(inbox, tasks, Qt::Vertical);
    tabifyDockWidget(tasks, notes);
    tabifyDockWidget(notes, boss);
    tasks->raise();
    m_defaultDocks = {inbox, tasks};

    m_counts->setObjectName(QStringLiteral("agentCounts"));
    statusBar()->addPermanentWidget(m_counts);
    statusBar()->addPermanentWidget(m_connection);
    m_extra = std::make_unique<ExtraServices>(
        ExtraServices::Deps{*m_agents, *m_panes, *m_inbox, *m_tray, *statusBar(), m_credentials});
    connect(m_extra.get(), &ExtraServices::changed, this, &MainWindow::updateCounts);
    m_actions->setResolver([this](const QString &id) { return sessionOf(id); });
    m_agents->setHostsModel(m_session.hosts());

    connect(m_agents, &AgentsView::currentAgentChanged, this, &MainWindow::showAgent);
    connect(m_agents, &AgentsView::currentAgentChanged, m_boss, &BossPanel::setCurrentAgent);
    connect(m_boss, &BossPanel::agentActivated, m_agents, &AgentsView::selectAgent);
    connect(m_notifications, &NotificationsPanel::agentActivated, m_agents,
            &AgentsView::selectAgent);
    connect(m_actions, &AgentActions::status, this,
            [this](const QString &m) { statusBar()->showMessage(m, 8000); });
    connect(&m_session, &MonitorSession::actionFailed, this,
            [this](const QString &what, const QString &error) {
                statusBar()->showMessage(tr("%1 failed: %2").arg(what, error), 15000);
            });
    // focus_agent (POST /api/focus-agent): another tool asks the desktop to show an agent.
    connect(&m_session, &MonitorSession::agentFocusRequested, m_agents, &AgentsView::selectAgent);
    connect(&m_session, &MonitorSession::notificationArrived, m_tray, &TrayNotifier::notify);
    // Failures and finished turns reach the tray through the inbox (permission requests have
    // their own notification below). Looking at an agent clears its "finished" item.
    connect(m_inbox, &InboxModel::itemAdded, this, [this](const InboxModel::Item &item) {
        if (item.kind == InboxModel::Kind::Permission)
            return;
        if (item.kind == InboxModel::Kind::Finished && isActiveWindow() &&
            item.agentId == m_agents->currentAgentId()) {
            m_inbox->markSeen(item.session, item.agentId);
            return;
        }
        m_tray->notifyText(item.title, item.detail);
    });
    connect(m_agents, &AgentsView::currentAgentChanged, this,
            [this](const QString &id) { m_inbox->markSeen(sessionOf(id), id); });
    connect(m_inboxPanel, &InboxPanel::agentActivated, this,
            [this](MonitorSession *, const QString &id) { m_agents->selectAgent(id); });
    connect(m_inboxPanel, &InboxPanel::requestOpened, m_permissions, &PermissionPrompter::open);
    connect(&m_session, &MonitorSession::permissionRequested, m_tray,
            &TrayNotifier::notifyPermission);
    connect(&m_session, &MonitorSession::resynced, this, [this] {
        // A snapshot may have arrived after a reconnect: the views kept their rows (the model
        // diffs); make sure the pane still shows the selected agent.
        if (!m_restoreAgent.isEmpty() && m_agents->currentAgentId().isEmpty() &&
            m_session.agents().rowOf(m_restoreAgent) >= 0)
            m_agents->selectAgent(m_restoreAgent);
        m_restoreAgent.clear(); // the first snapshot only: later ones keep the user's choice
        showAgent(m_agents->currentAgentId());
        updateCounts();
    });
    AgentsModel &agents = m_session.agents();
    connect(&agents, &QAbstractItemModel::rowsInserted, this, &MainWindow::updateCounts);
    connect(&agents, &QAbstractItemModel::rowsRemoved, this, &MainWindow::updateCounts);
    connect(&agents, &QAbstractItemModel::dataChanged, this, &MainWindow::updateCounts);

    buildMenus();
    restoreLayout();
    m_extra->restore();
    updateCounts();
}

MainWindow::~MainWindow() = default;

MonitorSession *MainWindow::sessionOf(const QString &agentId) const {
    MonitorSession *extra = m_extra->sessionOf(agentId);
    return extra ? extra : &m_session;
}

AgentPane *MainWindow::agentPane() const {
    return static_cast<AgentPane *>(m_panes->currentWidget());
}

void MainWindow::showAgent(const QString &agentId) {
    MonitorSession *session = sessionOf(agentId);
    AgentPane *pane = session == &m_session ? m_pane : m_extra->paneOf(session);
    if (!pane)
        pane = m_pane;
    if (pane != agentPane())
        agentPane()->setAgent({}); // the other service's pane lets go of its agent
    m_panes->setCurrentWidget(pane);
    pane->setAgent(agentId);
}

void MainWindow::showAddServiceDialog() {
    auto *dialog = new ConnectDialog(m_credentials, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Add a service to this window"));
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        if (!m_extra->add(dialog->endpoint(), dialog->profile().name))
            statusBar()->showMessage(tr("That service is shown already"), 8000);
    });
    dialog->open();
}

QDockWidget *MainWindow::addDock(QWidget *content, const QString &title, const QString &name) {
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(name); // saveState() keys docks by object name
    dock->setWidget(content);
    addDockWidget(Qt::RightDockWidgetArea, dock);
    return dock;
}

void MainWindow::buildMenus() {
    auto add = [this](QMenu *menu, const QString &text, const QKeySequence &key,
                      const QString &name, auto slot) {
        QAction *a = menu->addAction(text);
        a->setShortcut(key);
        a->setObjectName(name);
        connect(a, &QAction::triggered, this, slot);
        m_windowActions << a;
        return a;
    };
    QMenu *file = menuBar()->addMenu(tr("&File"));
    add(file, tr("&Connect to service..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
        QStringLiteral("actionConnect"), [this] { showConnectDialog(); });
    add(file, tr("&Reconnect"), QKeySequence(Qt::Key_F5), QStringLiteral("actionReconnect"),
        [this] {
            // Opened again rather than resumed: that rereads the local token file, which the
            // service may have regenerated since (the old token then ends in AuthFailed).
            const client::Endpoint requested = m_session.requestedEndpoint();
            m_session.close();
            if (requested.baseUrl.isValid())
                m_session.open(requested);
            else
                m_session.client().connectToService();
        });
    add(file, tr("&Disconnect"), QKeySequence(), QStringLiteral("actionDisconnect"),
        [this] { m_session.close(); });
    file->addSeparator();
    add(file, tr("&Add service to this window..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A),
        QStringLiteral("actionAddService"), [this] { showAddServiceDialog(); });
    add(file, tr("Re&move the selected agent's service"), QKeySequence(),
        QStringLiteral("actionRemoveService"), [this] {
            MonitorSession *s = m_extra->sessionOf(m_agents->currentAgentId());
            if (s)
                m_extra->remove(s);
            else
                statusBar()->showMessage(
                    tr("Select an agent of an added service (the first one stays)"), 8000);
        });
    file->addSeparator();
    add(file, tr("&Quit"), QKeySequence::Quit, QStringLiteral("actionQuit"), [this] { close(); });

    QMenu *agents = menuBar()->addMenu(tr("&Agents"));
    for (QAction *a : m_actions->all()) {
        agents->addAction(a);
        if (a == m_actions->clearContext)
            agents->addSeparator();
    }
    // The table offers the same actions on right-click.
    m_agents->table()->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_agents->table()->addActions(
        {m_actions->stopAgents, m_actions->clearContext, m_actions->deleteAgents});

    QMenu *view = menuBar()->addMenu(tr("&View"));
    // One Ctrl+F (two actions with one shortcut would be ambiguous and do nothing): it finds in
    // the conversation while that has the focus, else it filters the agents.
    add(view, tr("&Find: filter agents, or in the conversation"), QKeySequence::Find,
        QStringLiteral("actionFilter"), [this] {
            if (agentPane()->conversationHasFocus())
                agentPane()->openFind();
            else
                m_agents->focusFilter();
        });
    add(view, tr("Agents &table"), QKeySequence(Qt::CTRL | Qt::Key_1),
        QStringLiteral("actionFocusTable"), [this] { m_agents->table()->setFocus(); });
    add(view, tr("&Message box"), QKeySequence(Qt::CTRL | Qt::Key_L),
        QStringLiteral("actionFocusMessage"), [this] { agentPane()->focusMessage(); });
    add(view, tr("&Search history"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F),
        QStringLiteral("actionSearchHistory"), [this] { agentPane()->focusSearch(); });
    add(view, tr("&Older history"), QKeySequence(Qt::CTRL | Qt::Key_Home),
        QStringLiteral("actionOlderHistory"), [this] { agentPane()->loadOlder(); });
    add(view, tr("&Kill selected task"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K),
        QStringLiteral("actionKillTask"), [this] { m_tasks->killCurrent(); });
    add(view, tr("&Inbox (then G grant, D deny, A/P always, J/K move)"), QKeySequence(Qt::Key_F7),
        QStringLiteral("actionFocusInbox"), [this] {
            if (auto *dock = findChild<QDockWidget *>(QStringLiteral("inboxDock"))) {
                dock->show();
                dock->raise();
            }
            m_inboxPanel->list()->setFocus();
        });
    add(view, tr("Next inbox item"), QKeySequence(Qt::CTRL | Qt::Key_J),
        QStringLiteral("actionNextInboxItem"), [this] {
            m_inboxPanel->selectNext(1);
            m_inboxPanel->list()->setFocus();
        });
    add(view, tr("&Library: classes, skills, prompts, hooks, buildings"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L), QStringLiteral("actionLibrary"),
        [this] { showLibrary(); });
    add(view, tr("&Hosts: the machines agents run on"),
        QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H), QStringLiteral("actionHosts"),
        [this] { showHosts(); });
    view->addSeparator();
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    add(help, tr("&Keyboard shortcuts"), QKeySequence::HelpContents,
        QStringLiteral("actionShortcuts"), [this] { showShortcuts(); });
    add(help, tr("&About"), QKeySequence(), QStringLiteral("actionAbout"), [this] {
        QMessageBox::about(this, tr("About Flotilla monitor"),
                           tr("Flotilla monitor %1\nA desktop client of flotillad.")
                               .arg(QStringLiteral(FLOTILLA_VERSION)));
    });
}

QList<QAction *> MainWindow::allActions() const {
    QList<QAction *> all = m_actions->all();
    all << m_windowActions;
    return all;
}

LibraryWindow *MainWindow::library() {
    if (!m_library)
        m_library = new LibraryWindow(m_session, this);
    return m_library;
}

void MainWindow::showLibrary() {
    LibraryWindow *w = library();
    w->show();
    w->raise();
    w->activateWindow();
}

HostsDialog *MainWindow::hosts() {
    if (!m_hosts)
        m_hosts = new HostsDialog(m_session, this);
    return m_hosts;
}

void MainWindow::showHosts() {
    HostsDialog *d = hosts();
    d->show();
    d->raise();
    d->activateWindow();
}

void MainWindow::showShortcuts() {
    auto *d = new ShortcutsDialog(allActions(), this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->open();
}

void MainWindow::connectTo(const client::Endpoint &endpoint) {
    qCInfo(lcUi) << "connecting to" << endpoint.baseUrl.toDisplayString();
    setWindowTitle(tr("Flotilla monitor - %1").arg(endpoint.baseUrl.toDisplayString()));
    m_session.close();
    m_session.open(endpoint);
}

void MainWindow::showConnectDialog() {
    auto *dialog = new ConnectDialog(m_credentials, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    // What the user asked for: a token found in the local token file is not prefilled, so it
    // is never saved to the credential store (where it would outlive a regenerated file).
    const client::Endpoint current = m_session.requestedEndpoint();
    if (current.baseUrl.isValid())
        dialog->preset(current.baseUrl, current.token);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { connectTo(dialog->endpoint()); });
    dialog->open();
}

void MainWindow::updateCounts() {
    QList<MonitorSession *> sessions{&m_session};
    if (m_extra)
        sessions << m_extra->sessions();
    int total = 0;
    int working = 0;
    int waiting = 0;
    int failed = 0;
    for (MonitorSession *session : std::as_const(sessions)) {
        const AgentsModel &agents = session->agents();
        total += agents.rowCount();
        for (int row = 0; row < agents.rowCount(); ++row) {
            const QString s = agents.index(row, AgentsModel::Status).data().toString();
            working += s == QLatin1String("working");
            waiting += s == QLatin1String("waiting_permission");
            failed += s == QLatin1String("error");
        }
    }
    QString text = tr("%n agent(s), %1 working", nullptr, total).arg(working);
    if (sessions.size() > 1)
        text += tr(" on %1 services").arg(sessions.size());
    if (waiting > 0)
        text += tr(", %1 waiting for permission").arg(waiting);
    if (failed > 0)
        text += tr(", %1 in error").arg(failed);
    m_counts->setText(text);
}

void MainWindow::saveLayout() const {
    QSettings s;
    s.setValue(kGeometry, saveGeometry());
    s.setValue(kState, saveState(kLayoutVersion));
    s.setValue(kSplitter, m_split->saveState());
    s.setValue(kHeader, m_agents->saveHeaderState());
    s.setValue(kSelectedAgent, m_agents->currentAgentId());
}

void MainWindow::restoreLayout() {
    QSettings s;
    if (!restoreGeometry(s.value(kGeometry).toByteArray()))
        resize(1280, 800);
    if (!restoreState(s.value(kState).toByteArray(), kLayoutVersion) &&
        m_defaultDocks.size() == 2) {
        // The default: a column of about a quarter of the window, the inbox over three quarters of
        // it.
        resizeDocks({m_defaultDocks[0]}, {width() / 4}, Qt::Horizontal);
        resizeDocks(m_defaultDocks, {3 * height() / 4, height() / 4}, Qt::Vertical);
    }
    if (!m_split->restoreState(s.value(kSplitter).toByteArray()))
        m_split->setSizes({height() / 4, 3 * height() / 4});
    m_agents->restoreHeaderState(s.value(kHeader).toByteArray());
    m_restoreAgent = s.value(kSelectedAgent).toString();
}

void MainWindow::closeEvent(QCloseEvent *event) {
    saveLayout();
    QMainWindow::closeEvent(event);
}

} // namespace flotilla::monitor::ui
