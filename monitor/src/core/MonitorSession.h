#pragma once
// Everything the monitor window shows, fed by one ServiceClient: the models, and the actions
// the window offers (create, delete, stop, clear context, send, system prompt, kill task,
// answer a permission request, history pages, search). Widgets-free, so it is tested against a
// real flotillad without a window.

#include "client/ServiceClient.h"
#include "core/AgentsModel.h"
#include "core/ListModels.h"
#include "core/OutputModel.h"

#include <QHash>
#include <QObject>
#include <memory>

namespace flotilla::monitor {

class MonitorSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MonitorSession)
public:
    explicit MonitorSession(QObject *parent = nullptr);
    ~MonitorSession() override;

    client::ServiceClient &client() { return m_client; }
    void open(const client::Endpoint &endpoint); // connect (and keep reconnecting)
    void close();

    AgentsModel &agents() { return m_agents; }
    OutputModel &output(const QString &agentId); // created on first use, bounded
    TasksModel &tasks() { return m_tasks; }
    JsonListModel &notifications() { return m_notifications; }    // newest first, 500 kept
    JsonListModel &permissionRequests() { return m_permissions; } // pending only
    JsonListModel &delegations() { return m_delegations; }        // of the selected boss
    QString systemPrompt() const { return m_systemPrompt; }

    using Done = client::ServiceClient::Callback;
    void createAgent(const QJsonObject &fields, Done done = {}); // POST /api/agents
    void deleteAgents(const QStringList &ids, Done done = {});   // bulk/delete
    void stopAgents(const QStringList &ids, Done done = {});     // bulk/stop
    void clearContext(const QStringList &ids, Done done = {});   // bulk/clear-context
    void sendMessage(const QString &agentId, const QString &text, Done done = {});
    void loadSystemPrompt(Done done = {});
    void setSystemPrompt(const QString &prompt, Done done = {});
    void killTask(const QString &taskId, Done done = {});
    void answerPermission(const QString &requestId, bool granted);
    // Older output of an agent: one page (50 entries) before what the OutputModel holds;
    // prepends to output(agentId). `done` gets hasMore.
    void loadOlderHistory(const QString &agentId, std::function<void(bool hasMore)> done = {});
    void searchHistory(const QString &agentId, const QString &query, Done done = {});
    void selectBoss(const QString &bossId); // loads its delegation history into delegations()

Q_SIGNALS:
    void stateChanged(flotilla::client::ConnectionState state);
    void resynced(); // a snapshot (agents_update) was applied
    void notificationArrived(const QJsonObject &notification); // for the tray
    void permissionRequested(const QJsonObject &request);      // for the dialog
    void permissionResolved(const QString &requestId);
    void systemPromptChanged(const QString &prompt);
    void actionFailed(const QString &what, const QString &error); // REST refusals, for the UI

private:
    void onEvent(const QString &type, const QJsonValue &payload);

    client::ServiceClient m_client;
    AgentsModel m_agents;
    TasksModel m_tasks;
    JsonListModel m_notifications;
    JsonListModel m_permissions;
    JsonListModel m_delegations;
    QHash<QString, OutputModel *> m_outputs; // children of this
    QHash<QString, QString> m_historyCursor; // agentId -> paging cursor
    QString m_systemPrompt;
    QString m_selectedBoss;
};

} // namespace flotilla::monitor
