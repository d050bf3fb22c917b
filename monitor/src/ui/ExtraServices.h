#pragma once
// The services a window shows beside its first one (one window watches a workstation and a
// remote build box, say). Each has its own MonitorSession (own WebSocket, own ssh tunnel for an
// ssh:// URL), its agents in the shared table (Service column), its own agent pane, its items
// in the inbox, its permission requests in the tray and its connection state in the status bar.
// The list (URLs and names) is kept in QSettings and reopened at start; tokens come from the
// CredentialStore under the URL, as for the first service.

#include "client/ServiceClient.h"

#include <QObject>
#include <memory>
#include <vector>

class QStackedWidget;
class QStatusBar;

namespace flotilla::monitor {
class InboxModel;
class MonitorSession;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class AgentPane;
class AgentsView;
class ConnectionStatusLabel;
class CredentialStore;
class TrayNotifier;

class ExtraServices final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ExtraServices)
public:
    struct Deps {
        AgentsView &agents;
        QStackedWidget &panes;
        InboxModel &inbox;
        TrayNotifier &tray;
        QStatusBar &statusBar;
        CredentialStore &credentials;
    };
    explicit ExtraServices(Deps deps, QObject *parent = nullptr);
    ~ExtraServices() override;

    // Opens the service and shows it; a URL already shown is not added twice (false).
    bool add(const client::Endpoint &endpoint, const QString &name);
    void remove(MonitorSession *session);
    void restore(); // the saved list, each with its stored token

    QList<MonitorSession *> sessions() const;
    MonitorSession *sessionOf(const QString &agentId) const; // nullptr: not an extra's agent
    AgentPane *paneOf(const MonitorSession *session) const;
    QString nameOf(const MonitorSession *session) const;

Q_SIGNALS:
    void changed(); // a service added or removed, or its agents changed (counts)

private:
    struct Service;
    void save() const;

    Deps m_deps;
    std::vector<std::unique_ptr<Service>> m_services;
};

} // namespace flotilla::monitor::ui
