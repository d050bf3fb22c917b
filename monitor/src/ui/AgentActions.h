#pragma once
// The agent operations of the window as QActions with their shortcuts: create (Ctrl+N), delete
// with confirmation (Del), stop (Ctrl+.), clear context (Ctrl+Shift+X), and the global system
// prompt (Ctrl+Shift+P). They act on the agents selected in the AgentsView (multi-selection)
// through MonitorSession; refusals surface through MonitorSession::actionFailed.

#include <QObject>

class QAction;
class QWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class AgentsView;

class AgentActions final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentActions)
public:
    AgentActions(MonitorSession &session, AgentsView &view, QWidget *window);

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
    QString describe(const QStringList &ids) const; // "agent-1, agent-2 and 3 more"

    MonitorSession &m_session;
    AgentsView &m_view;
    QWidget *m_window;
};

} // namespace flotilla::monitor::ui
