#pragma once
// Everything the monitor window shows, fed by one ServiceClient: the models, and the actions
// the window offers (create, delete, stop, clear context, send, system prompt, kill task,
// answer a permission request, history pages, search). Widgets-free, so it is tested against a
// real flotillad without a window.

#include "client/ServiceClient.h"
#include "core/AgentsModel.h"
#include "core/HostsModel.h"
#include "core/ListModels.h"
#include "core/ShapingCatalog.h"
#include "core/SshTunnel.h"
#include "core/TranscriptModel.h"

#include <QHash>
#include <QJsonArray>
#include <QObject>
#include <memory>

namespace flotilla::monitor {

class MonitorSession final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MonitorSession)
public:
    // `configDir` (QStandardPaths::GenericConfigLocation in the app) is where a local
    // flotillad's token file is looked up (LocalToken.h); empty: never looked up.
    explicit MonitorSession(QString configDir = {}, QObject *parent = nullptr);
    ~MonitorSession() override;

    client::ServiceClient &client() { return m_client; }
    // Connects (and keeps reconnecting). `endpoint.token` is the token the user gave; when it is
    // empty and the service is local, the token of the local token file is used instead.
    void open(const client::Endpoint &endpoint);
    // The endpoint as given to open(), without a token taken from the local token file, so the
    // window never shows or saves that one (it stays the service's, and may be regenerated).
    client::Endpoint requestedEndpoint() const { return m_requested; }
    void close();
    // The tunnel of an ssh:// service (SessionTunnel.cpp): open() starts it and connects through
    // it whenever it comes up; close() stops it. Stopped for other services.
    SshTunnel &tunnel() { return m_tunnel; }

    AgentsModel &agents() { return m_agents; }
    // The agent's conversation: created on first use (also for agents never shown, so a turn
    // that starts while another agent is selected still has its user message), bounded.
    TranscriptModel &conversation(const QString &agentId);
    TasksModel &tasks() { return m_tasks; }
    JsonListModel &notifications() { return m_notifications; }    // newest first, 500 kept
    JsonListModel &permissionRequests() { return m_permissions; } // pending only
    JsonListModel &delegations() { return m_delegations; }        // of the selected boss
    QString systemPrompt() const { return m_systemPrompt; }
    // Classes, skills, saved prompts, hooks and buildings (loaded on first use, kept by events).
    ShapingCatalog &shaping() { return m_shaping; }
    // The machines agents run on (SessionHosts.cpp): loaded on every connection, kept by the
    // host_* events, each with the agents this session sees on it.
    HostsModel &hosts() { return m_hosts; }

    using Done = client::ServiceClient::Callback;
    void createAgent(const QJsonObject &fields, Done done = {}); // POST /api/agents
    void deleteAgents(const QStringList &ids, Done done = {});   // bulk/delete
    void stopAgents(const QStringList &ids, Done done = {});     // bulk/stop
    void clearContext(const QStringList &ids, Done done = {});   // bulk/clear-context
    // Also shows the message in conversation(agentId) at once (pending until its turn starts;
    // an "Error: not sent" entry on refusal), so views need not echo it themselves.
    void sendMessage(const QString &agentId, const QString &text, Done done = {});
    void loadSystemPrompt(Done done = {});
    void setSystemPrompt(const QString &prompt, Done done = {});
    void killTask(const QString &taskId, Done done = {});
    // `remember` "agent", "project" or "global" also stores a standing rule for such requests
    // (the service stores it before it answers); empty: this request only.
    void answerPermission(const QString &requestId, bool granted, const QString &remember = {});
    // Older conversation of an agent: one page (50 entries) before what its TranscriptModel
    // holds, prepended to conversation(agentId). `done` gets hasMore, exactly once (also on
    // errors, and when a page for that agent was already on its way: both callers get its
    // outcome). History entries at or after the oldest live entry are skipped: they are on
    // screen already.
    void loadOlderHistory(const QString &agentId, std::function<void(bool hasMore)> done = {});
    void searchHistory(const QString &agentId, const QString &query, Done done = {});
    void selectBoss(const QString &bossId); // loads its delegation history into delegations()
    QString selectedBoss() const { return m_selectedBoss; }
    void requestSync(); // asks the service for a fresh agents_update (over the WebSocket)
    // send_boss_command over the WebSocket; false (and actionFailed) while not connected.
    bool sendBossCommand(const QString &bossId, const QString &command);
    // How long a completed exec task stays in tasks() (default 60 s; tests shorten it).
    void setCompletedTaskLingerMs(int ms) { m_taskLingerMs = ms; }
    static constexpr int kHistoryPageSize = 50;
    // An agent's git worktree (SessionWorktrees.cpp). The diff and the merge answer
    // are the caller's to show (a merge conflict is an answer with its paths, not an error to
    // report twice); a refused review also goes to actionFailed.
    void fetchDiff(const QString &agentId, Done done);
    void sendReview(const QString &agentId, const QJsonArray &comments, const QString &message,
                    Done done = {});
    void mergeAgent(const QString &agentId, const QString &strategy, const QString &message,
                    Done done);
    // Hosts (SessionHosts.cpp). A refusal is the caller's to show (a host in use names its
    // agents); the answer's host is put in hosts() at once, the check's answer beside it.
    void createHost(const QJsonObject &fields, Done done = {}); // POST /api/hosts
    void deleteHost(const QString &name, Done done = {});       // DELETE /api/hosts/:name
    void checkHost(const QString &name, Done done = {});        // POST /api/hosts/:name/check

Q_SIGNALS:
    void stateChanged(flotilla::client::ConnectionState state);
    void resynced(); // a snapshot (agents_update) was applied
    void notificationArrived(const QJsonObject &notification); // for the tray
    void permissionRequested(const QJsonObject &request);      // for the dialog
    void permissionResolved(const QString &requestId);
    void systemPromptChanged(const QString &prompt);
    void actionFailed(const QString &what, const QString &error); // REST refusals, for the UI
    void agentFocusRequested(const QString &agentId);             // focus_agent
    // worktree_diff_changed: a turn or a merge changed what the agent's diff shows.
    void worktreeDiffChanged(const QString &agentId, const QStringList &files);

private:
    using Handler = void (MonitorSession::*)(const QJsonValue &payload);
    static const QHash<QString, Handler> &handlers();
    void onEvent(const QString &type, const QJsonValue &payload);
    void onStateChanged(client::ConnectionState state);
    bool openTunnelled(const client::Endpoint &endpoint); // false: not an ssh:// service
    void onTunnelStateChanged(SshTunnel::State state);
    // Event handlers (SessionEvents.cpp), one per server message type.
    void onAgentsUpdate(const QJsonValue &payload);
    void onAgentCreated(const QJsonValue &payload);
    void onAgentUpdated(const QJsonValue &payload);
    void onAgentDeleted(const QJsonValue &payload);
    void onOutput(const QJsonValue &payload);
    void onContextUpdate(const QJsonValue &payload);
    void onCompactingStatus(const QJsonValue &payload);
    void onNotification(const QJsonValue &payload);
    void onExecStarted(const QJsonValue &payload);
    void onExecOutput(const QJsonValue &payload);
    void onExecCompleted(const QJsonValue &payload);
    void onPermissionRequest(const QJsonValue &payload);
    void onPermissionResolved(const QJsonValue &payload);
    void onDelegationDecision(const QJsonValue &payload);
    void onDelegationHistory(const QJsonValue &payload);
    void onFocusAgent(const QJsonValue &payload);
    void onServiceError(const QJsonValue &payload);
    void onWorktreeDiffChanged(const QJsonValue &payload);
    // sandbox_blocked: a line in the agent's conversation and a count on its row.
    void onSandboxBlocked(const QJsonValue &payload);
    void onHostChanged(const QJsonValue &payload); // host_created, host_updated
    void onHostDeleted(const QJsonValue &payload);
    void loadHosts(); // GET /api/hosts, on every connection
    void countAgentsOnHosts();
    // A turn that started (currentTask set) or ended shows in the agent's conversation.
    void followTurn(const QString &agentId, const QJsonObject &agentFields);
    void onIgnored(const QJsonValue &payload);
    // Exec tasks that ended while the channel was down never get their completion event.
    void reconcileTasks();
    void finishTask(const QString &taskId, const QJsonObject &completion);
    // Forgets an agent's paging (new conversation, deleted agent); waiting callers get false.
    void resetHistory(const QString &agentId);
    void finishHistoryPage(const QString &agentId, quint64 generation, const client::RestReply &r,
                           qint64 offset);
    // The service's sandbox for auto agents without one of their own, into agents().
    void loadSandboxDefault();
    // The prompt a GET or POST of the system prompt answered with becomes the session's.
    void takeSystemPrompt(const client::RestReply &r, const Done &done);
    // Runs a REST call; a refusal also goes to actionFailed(what, error).
    void call(const QString &what, const QByteArray &verb, const QString &path,
              const QJsonObject &body, Done done);

    QString m_configDir;
    client::Endpoint m_requested;
    client::ServiceClient m_client;
    SshTunnel m_tunnel;
    ShapingCatalog m_shaping; // uses m_client
    AgentsModel m_agents;
    TasksModel m_tasks;
    JsonListModel m_notifications;
    JsonListModel m_permissions;
    JsonListModel m_delegations;
    QHash<QString, TranscriptModel *> m_conversations; // children of this
    // History paging per agent: the session being paged, the absolute index (from the oldest)
    // of the oldest entry shown, and the time of the oldest live entry (history at or after it
    // is already on screen).
    struct HistoryCursor {
        QString sessionId;
        qint64 oldestIndex = -1; // -1: nothing loaded yet
        qint64 lastTotal = 0;
        qint64 liveSince = 0;
        bool loading = false;
        bool exhausted = false;
        quint64 generation = 0; // a reply for an older generation is stale
        QList<std::function<void(bool)>> waiters;
    };
    QHash<QString, HistoryCursor> m_historyCursor;
    quint64 m_historyGeneration = 0;
    int m_taskLingerMs = 60000;
    QString m_systemPrompt;
    QString m_selectedBoss;
    HostsModel m_hosts;
    // Host events that came while GET /api/hosts was on its way: applied again over its answer,
    // which may have been read before them. {deleted, payload}
    QList<QPair<bool, QJsonObject>> m_hostsPending;
    bool m_hostsLoading = false;
};

} // namespace flotilla::monitor
