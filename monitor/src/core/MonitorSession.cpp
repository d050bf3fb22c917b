#include "core/MonitorSession.h"

#include "core/LocalToken.h"
#include "core/MonitorLog.h"
#include "protocol/BossNames.h"
#include "protocol/ExecNames.h"
#include "protocol/HistoryNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"

#include <QDateTime>
#include <QJsonArray>
#include <QUrlQuery>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace m = ::flotilla::wire::msg;
namespace hk = ::flotilla::wire::history::key;
namespace hp = ::flotilla::wire::history::param;
namespace bk = ::flotilla::wire::boss::key;
namespace pm = ::flotilla::wire::permission;

using client::ConnectionState;
using client::RestReply;

namespace {
QString pathId(const QString &id) {
    return QString::fromLatin1(QUrl::toPercentEncoding(id));
}

QJsonArray toArray(const QStringList &ids) {
    return QJsonArray::fromStringList(ids);
}
} // namespace

MonitorSession::MonitorSession(QString configDir, QObject *parent)
    : QObject(parent)
    , m_configDir(std::move(configDir))
    , m_shaping(m_client)
    , m_tasks(this)
    , m_notifications(QString(k::Id), 500, this)
    , m_permissions(QString(k::Id), 1000, this)
    , m_delegations(QString(k::Id), 1000, this) {
    m_shaping.prompts().setAgentNames(
        [this](const QString &id) { return m_agents.agent(id).value(k::Name_).toString(); });
    connect(&m_client, &client::ServiceClient::eventReceived, this, &MonitorSession::onEvent);
    connect(&m_client, &client::ServiceClient::stateChanged, this, &MonitorSession::onStateChanged);
    connect(&m_tunnel, &SshTunnel::stateChanged, this, &MonitorSession::onTunnelStateChanged);
    // The service sends no event when a host's number of agents changes: count them here.
    connect(&m_agents, &QAbstractItemModel::rowsInserted, this,
            &MonitorSession::countAgentsOnHosts);
    connect(&m_agents, &QAbstractItemModel::rowsRemoved, this, &MonitorSession::countAgentsOnHosts);
    connect(&m_agents, &QAbstractItemModel::modelReset, this, &MonitorSession::countAgentsOnHosts);
    connect(&m_agents, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                if (topLeft.column() <= AgentsModel::Host &&
                    bottomRight.column() >= AgentsModel::Host)
                    countAgentsOnHosts();
            });
}

MonitorSession::~MonitorSession() = default;

void MonitorSession::open(const client::Endpoint &endpoint) {
    m_requested = endpoint;
    if (openTunnelled(endpoint))
        return;
    m_client.setEndpoint(
        {endpoint.baseUrl, resolveServiceToken(endpoint.baseUrl, endpoint.token, m_configDir)});
    m_client.connectToService();
}

void MonitorSession::close() {
    m_tunnel.stop();
    m_client.disconnectFromService();
}

TranscriptModel &MonitorSession::conversation(const QString &agentId) {
    TranscriptModel *&model = m_conversations[agentId];
    if (!model)
        model = new TranscriptModel(TranscriptModel::kDefaultMaxEntries,
                                    TranscriptModel::kDefaultMaxBytes, this);
    return *model;
}

void MonitorSession::onStateChanged(ConnectionState state) {
    if (state == ConnectionState::Connected) {
        // The service replays what is still pending on connect: start from an empty list so
        // requests resolved while we were away do not linger.
        m_permissions.reset({});
        call(tr("load notifications"), QByteArrayLiteral("GET"),
             QStringLiteral("/api/notifications?limit=500"), {}, [this](const RestReply &r) {
                 if (!r.ok())
                     return;
                 QList<QJsonObject> items;
                 for (const QJsonValue &v : r.body.array())
                     items.append(v.toObject());
                 m_notifications.reset(items);
             });
        loadSystemPrompt();
        loadSandboxDefault();
        loadHosts();
        m_shaping.onConnected();
        if (!m_selectedBoss.isEmpty())
            selectBoss(m_selectedBoss);
    }
    Q_EMIT stateChanged(state);
}

// GET /api/health -> 200 {..., sandbox?: {..., default}} (sandbox for authenticated callers)
void MonitorSession::loadSandboxDefault() {
    // Asked on every connection: a restarted service may have another default. Not the user's
    // action, so a failure is logged, not reported; an auto agent then shows no sandbox line.
    m_client.get(QStringLiteral("/api/health"), [this](const RestReply &r) {
        if (!r.ok()) {
            qCInfo(lcMonitor) << "load health failed:" << r.status << r.error;
            return;
        }
        namespace sbk = ::flotilla::wire::sandbox::key;
        m_agents.setSandboxDefault(
            r.body.object().value(sbk::Sandbox).toObject().value(sbk::Default).toString());
    });
}

void MonitorSession::call(const QString &what, const QByteArray &verb, const QString &path,
                          const QJsonObject &body, Done done) {
    auto finish = [this, what, done = std::move(done)](const RestReply &r) {
        if (!r.ok()) {
            qCInfo(lcMonitor) << what << "failed:" << r.status << r.error;
            Q_EMIT actionFailed(what, r.error);
        }
        if (done)
            done(r);
    };
    if (verb == "GET")
        m_client.get(path, std::move(finish));
    else if (verb == "POST")
        m_client.post(path, body, std::move(finish));
    else if (verb == "DELETE")
        m_client.del(path, std::move(finish));
    else if (verb == "PATCH")
        m_client.patch(path, body, std::move(finish));
    else
        m_client.put(path, body, std::move(finish));
}

// POST /api/agents -> 201 agent | 400 | 409 | 422
void MonitorSession::createAgent(const QJsonObject &fields, Done done) {
    call(tr("create agent"), QByteArrayLiteral("POST"), QStringLiteral("/api/agents"), fields,
         [this, done = std::move(done)](const RestReply &r) {
             // The event brings it too; upserting now lets the caller select the row at once.
             if (r.ok())
                 m_agents.upsert(r.body.object());
             if (done)
                 done(r);
         });
}

// A bulk answer is 200 even when some ids failed: {succeeded, failed: [{id, error}]}.
static void reportBulkFailures(MonitorSession *session, const QString &what, const RestReply &r,
                               void (MonitorSession::*signal)(const QString &, const QString &)) {
    if (!r.ok())
        return;
    for (const QJsonValue &v : r.body.object().value(k::Failed).toArray()) {
        const QJsonObject f = v.toObject();
        Q_EMIT(session->*signal)
        (what, f.value(k::Id).toString() + QStringLiteral(": ") + f.value(k::Error).toString());
    }
}

void MonitorSession::deleteAgents(const QStringList &ids, Done done) {
    const QString what = tr("delete agents");
    call(what, QByteArrayLiteral("POST"), QStringLiteral("/api/agents/bulk/delete"),
         {{k::AgentIds, toArray(ids)}}, [this, what, done = std::move(done)](const RestReply &r) {
             reportBulkFailures(this, what, r, &MonitorSession::actionFailed);
             if (done)
                 done(r);
         });
}

void MonitorSession::stopAgents(const QStringList &ids, Done done) {
    const QString what = tr("stop agents");
    call(what, QByteArrayLiteral("POST"), QStringLiteral("/api/agents/bulk/stop"),
         {{k::AgentIds, toArray(ids)}}, [this, what, done = std::move(done)](const RestReply &r) {
             reportBulkFailures(this, what, r, &MonitorSession::actionFailed);
             if (done)
                 done(r);
         });
}

void MonitorSession::clearContext(const QStringList &ids, Done done) {
    const QString what = tr("clear context");
    call(what, QByteArrayLiteral("POST"), QStringLiteral("/api/agents/bulk/clear-context"),
         {{k::AgentIds, toArray(ids)}}, [this, what, done = std::move(done)](const RestReply &r) {
             reportBulkFailures(this, what, r, &MonitorSession::actionFailed);
             if (r.ok()) {
                 for (const QJsonValue &v : r.body.object().value(k::Succeeded).toArray()) {
                     const QString id = v.toString();
                     conversation(id).appendNotice(tr("[context cleared]"));
                     resetHistory(id); // a new conversation starts
                 }
             }
             if (done)
                 done(r);
         });
}

// POST /api/agents/:id/message -> 200 {success, message: "sent" | "queued (position N)"}
void MonitorSession::sendMessage(const QString &agentId, const QString &text, Done done) {
    // Shown at once, before the answer, so it precedes the turn's output; its time is also
    // where history paging stops (the CLI records the message after this moment).
    const quint64 shown =
        conversation(agentId).appendUserMessage(text, QDateTime::currentMSecsSinceEpoch());
    call(tr("send message"), QByteArrayLiteral("POST"),
         QStringLiteral("/api/agents/%1/message").arg(pathId(agentId)), {{k::Message, text}},
         [this, agentId, shown, done = std::move(done)](const RestReply &r) {
             if (!r.ok()) {
                 TranscriptModel &out = conversation(agentId);
                 out.setPending(shown, false); // refused: it will not run
                 out.appendChunk({{k::AgentId, agentId},
                                  {k::Text, tr("Error: not sent: %1").arg(r.error)},
                                  {k::IsStreaming, false},
                                  {k::Timestamp, QDateTime::currentMSecsSinceEpoch()}});
             }
             if (done)
                 done(r);
         });
}

void MonitorSession::loadSystemPrompt(Done done) {
    call(tr("load system prompt"), QByteArrayLiteral("GET"),
         QStringLiteral("/api/agents/system-settings/prompt"), {},
         [this, done = std::move(done)](const RestReply &r) { takeSystemPrompt(r, done); });
}

void MonitorSession::setSystemPrompt(const QString &prompt, Done done) {
    call(tr("set system prompt"), QByteArrayLiteral("POST"),
         QStringLiteral("/api/agents/system-settings/prompt"), {{k::Prompt, prompt}},
         [this, done = std::move(done)](const RestReply &r) { takeSystemPrompt(r, done); });
}

void MonitorSession::takeSystemPrompt(const RestReply &r, const Done &done) {
    if (r.ok()) {
        const QString prompt = r.body.object().value(k::Prompt).toString();
        if (prompt != m_systemPrompt) {
            m_systemPrompt = prompt;
            Q_EMIT systemPromptChanged(prompt);
        }
    }
    if (done)
        done(r);
}

// DELETE /api/exec/tasks/:taskId -> 204 | 404
void MonitorSession::killTask(const QString &taskId, Done done) {
    call(tr("kill task"), QByteArrayLiteral("DELETE"),
         QStringLiteral("/api/exec/tasks/%1").arg(pathId(taskId)), {}, std::move(done));
}

void MonitorSession::answerPermission(const QString &requestId, bool granted,
                                      const QString &remember) {
    QJsonObject payload{{pm::key::PermissionId, requestId}, {pm::key::Granted, granted}};
    if (!remember.isEmpty())
        payload.insert(pm::key::Remember, remember);
    const QString agentId = m_permissions.itemById(requestId).value(k::AgentId).toString();
    if (!agentId.isEmpty())
        payload.insert(k::AgentId, agentId);
    if (!m_client.sendEvent(QString(pm::msg::Response), payload)) {
        Q_EMIT actionFailed(tr("answer permission request"), tr("not connected to the service"));
        return;
    }
    // permission_resolved removes it from the list; until then it stays visible.
}

// GET /api/agents/:id/delegations -> 200 {bossId, decisions} | 404
void MonitorSession::selectBoss(const QString &bossId) {
    if (bossId != m_selectedBoss) {
        m_selectedBoss = bossId;
        m_delegations.reset({});
    }
    if (bossId.isEmpty())
        return;
    call(tr("load delegations"), QByteArrayLiteral("GET"),
         QStringLiteral("/api/agents/%1/delegations?limit=1000").arg(pathId(bossId)), {},
         [this, bossId](const RestReply &r) {
             if (r.ok() && bossId == m_selectedBoss)
                 onDelegationHistory(r.body.object());
         });
}

bool MonitorSession::sendBossCommand(const QString &bossId, const QString &command) {
    const bool sent = m_client.sendEvent(QString(::flotilla::wire::boss::msg::SendBossCommand),
                                         {{k::BossId, bossId}, {bk::Command, command}});
    if (!sent)
        Q_EMIT actionFailed(tr("send boss command"), tr("not connected to the service"));
    return sent;
}

void MonitorSession::requestSync() {
    m_client.sendEvent(QString(m::RequestSync));
}

} // namespace flotilla::monitor
