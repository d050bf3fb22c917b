#pragma once
// The agent operations of the window as QActions with their shortcuts: create (Ctrl+N), delete
// with confirmation (Del), stop (Ctrl+.), clear context (Ctrl+Shift+X), and the global system
// prompt (Ctrl+Shift+P). They act on the agents selected in the AgentsView (multi-selection)
// through MonitorSession; refusals surface through MonitorSession::actionFailed. With several
// services in the window, delete, stop and clear context go to each agent's own service (the
// resolver); new agents and the system prompt are the first service's.

#include <QHash>
#include <QObject>
#include <QStringList>
#include <functional>

class QAction;
class QWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class AgentsView;
class NewAgentDialog;

class AgentActions final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentActions)
public:
    AgentActions(MonitorSession &session, AgentsView &view, QWidget *window);
    // Which service an agent belongs to (nullptr: gone); default: the first service.
    using Resolver = std::function<MonitorSession *(const QString &agentId)>;
    void setResolver(Resolver resolver) { m_resolve = std::move(resolver); }

    QAction *newAgent;
    QAction *deleteAgents;
    QAction *stopAgents;
    QAction *clearContext;
    QAction *systemPrompt;
    QList<QAction *> all() const;

    void createAgent();
    void deleteSelected();
    void stopSelected();
    void clearSelected();
    void editSystemPrompt();

Q_SIGNALS:
    void status(const QString &message); // for the status bar

private:
    void updateEnabled();
    void offerShaping(NewAgentDialog *dialog);
    void offerHosts(NewAgentDialog *dialog);
    QString describe(const QStringList &ids) const; // "agent-1, agent-2 and 3 more"
    // The selected agents grouped by their service, in selection order.
    QList<QPair<MonitorSession *, QStringList>> bySession(const QStringList &ids) const;

    MonitorSession &m_session;
    Resolver m_resolve;
    AgentsView &m_view;
    QWidget *m_window;
};

} // namespace flotilla::monitor::ui
