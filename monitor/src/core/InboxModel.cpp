#include "core/InboxModel.h"

#include "core/AgentsModel.h"
#include "core/ListModels.h"
#include "core/MonitorSession.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace flotilla::monitor {

namespace {
QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// One line, at most `max` characters: the inbox is a list, the details are a click away.
QString oneLine(QString text, int max = 160) {
    text.replace(QLatin1Char('\n'), QStringLiteral(" ⏎ "));
    return text.size() > max ? text.left(max - 1) + QChar(0x2026) : text;
}
} // namespace

InboxModel::InboxModel(QObject *parent)
    : QAbstractListModel(parent) {
}

InboxModel::~InboxModel() = default;

QString InboxModel::describeToolInput(const QString &tool, const QJsonObject &input) {
    Q_UNUSED(tool)
    for (const char *key : {"command", "file_path", "notebook_path", "path", "pattern", "url"}) {
        if (input.value(QLatin1String(key)).isString())
            return oneLine(str(input, key));
    }
    const QJsonArray changes = input.value(QLatin1String("changes")).toArray();
    if (!changes.isEmpty()) { // a Codex file change
        QStringList paths;
        for (const QJsonValue &c : changes)
            paths << str(c.toObject(), "path");
        return oneLine(paths.join(QStringLiteral(", ")));
    }
    return oneLine(QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact)));
}

void InboxModel::addSession(MonitorSession *session, const QString &service) {
    m_sessions.append(Watched{session, service, {}});
    // Pending requests: the session's own list is the truth (it is replayed on reconnect and
    // loses what was resolved, by anyone); the inbox mirrors it.
    JsonListModel &requests = session->permissionRequests();
    const auto sync = [this, session] {
        const JsonListModel &list = session->permissionRequests();
        QSet<QString> pending;
        for (int row = 0; row < list.rowCount(); ++row) {
            const QJsonObject request = list.item(row);
            pending.insert(str(request, "id"));
            onPermission(session, request);
        }
        removeWhere([&](const Item &i) {
            return i.session == session && i.kind == Kind::Permission &&
                   !pending.contains(i.requestId);
        });
    };
    connect(&requests, &QAbstractItemModel::rowsInserted, this, sync);
    connect(&requests, &QAbstractItemModel::rowsRemoved, this, sync);
    connect(&requests, &QAbstractItemModel::modelReset, this, sync);
    AgentsModel &agents = session->agents();
    const auto changed = [this, session] { onAgentsChanged(session); };
    connect(&agents, &QAbstractItemModel::dataChanged, this, changed);
    connect(&agents, &QAbstractItemModel::rowsInserted, this, changed);
    connect(&agents, &QAbstractItemModel::rowsRemoved, this, changed);
    connect(&agents, &QAbstractItemModel::modelReset, this, changed);
    connect(session, &QObject::destroyed, this, [this, session] { removeSession(session); });
    sync();
    onAgentsChanged(session);
}

void InboxModel::removeSession(MonitorSession *session) {
    m_sessions.erase(std::remove_if(m_sessions.begin(), m_sessions.end(),
                                    [session](const Watched &w) {
                                        return w.session == session || w.session.isNull();
                                    }),
                     m_sessions.end());
    removeWhere([session](const Item &i) { return i.session == session; });
    if (session)
        disconnect(session, nullptr, this, nullptr);
}

void InboxModel::onPermission(MonitorSession *session, const QJsonObject &request) {
    const QString id = str(request, "id");
    const bool listed = std::any_of(m_items.cbegin(), m_items.cend(), [&](const Item &i) {
        return i.kind == Kind::Permission && i.session == session && i.requestId == id;
    });
    if (id.isEmpty() || listed)
        return;
    Item item;
    item.kind = Kind::Permission;
    item.session = session;
    item.agentId = str(request, "agentId");
    item.agentName = str(request, "agentName");
    item.requestId = id;
    item.title = tr("%1 wants %2").arg(item.agentName, str(request, "tool"));
    item.detail = describeToolInput(str(request, "tool"),
                                    request.value(QLatin1String("toolInput")).toObject());
    item.timestamp = request.value(QLatin1String("timestamp")).toInteger();
    item.request = request;
    add(item);
}

void InboxModel::onAgentsChanged(MonitorSession *session) {
    const auto w = std::find_if(m_sessions.begin(), m_sessions.end(),
                                [session](const Watched &x) { return x.session == session; });
    if (w == m_sessions.end())
        return;
    const AgentsModel &agents = session->agents();
    QHash<QString, QString> now;
    for (const QString &id : agents.agentIds()) {
        const QJsonObject agent = agents.agent(id);
        const QString status = str(agent, "status");
        now.insert(id, status);
        const QString before = w->lastStatus.value(id);
        if (status == before)
            continue;
        const auto sameAgent = [&](Kind kind) {
            return [session, id, kind](const Item &i) {
                return i.session == session && i.agentId == id && i.kind == kind;
            };
        };
        if (status == QLatin1String("error")) {
            Item item;
            item.kind = Kind::Failed;
            item.session = session;
            item.agentId = id;
            item.agentName = str(agent, "name");
            item.title = tr("%1 failed").arg(item.agentName);
            item.detail = oneLine(str(agent, "lastError"));
            item.timestamp = QDateTime::currentMSecsSinceEpoch();
            removeWhere(sameAgent(Kind::Failed));
            add(item);
        } else if (before == QLatin1String("error")) {
            removeWhere(sameAgent(Kind::Failed));
        }
        // A turn ended (working, or waiting on a permission, to idle): the reply is there.
        const bool wasWorking =
            before == QLatin1String("working") || before == QLatin1String("waiting_permission");
        if (wasWorking && status == QLatin1String("idle")) {
            Item item;
            item.kind = Kind::Finished;
            item.session = session;
            item.agentId = id;
            item.agentName = str(agent, "name");
            item.title = tr("%1 finished").arg(item.agentName);
            item.detail = oneLine(str(agent, "currentTask").isEmpty() ? tr("the turn ended")
                                                                      : str(agent, "currentTask"));
            item.timestamp = QDateTime::currentMSecsSinceEpoch();
            removeWhere(sameAgent(Kind::Finished));
            add(item);
        } else if (status == QLatin1String("working")) {
            removeWhere(sameAgent(Kind::Finished)); // a new turn: the old reply was read or not
        }
    }
    // Agents that are gone take their items with them.
    removeWhere([&](const Item &i) {
        return i.session == session && i.kind != Kind::Permission && !now.contains(i.agentId);
    });
    w->lastStatus = now;
}

void InboxModel::add(const Item &item) {
    beginInsertRows({}, 0, 0);
    m_items.prepend(item);
    endInsertRows();
    for (const Watched &w : std::as_const(m_sessions)) {
        if (w.session == item.session)
            m_items.first().service = w.service;
    }
    Q_EMIT itemAdded(m_items.constFirst());
}

void InboxModel::removeWhere(const std::function<bool(const Item &)> &pred) {
    for (int row = int(m_items.size()) - 1; row >= 0; --row) {
        if (!pred(m_items.at(row)))
            continue;
        beginRemoveRows({}, row, row);
        m_items.removeAt(row);
        endRemoveRows();
    }
}

int InboxModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant InboxModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_items.size())
        return {};
    const Item &i = m_items.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        // Two lines, wrapped by the view: who and what, then the command, path or error.
        return m_sessions.size() > 1
                   ? QStringLiteral("[%1] %2\n%3").arg(i.service, i.title, i.detail)
                   : QStringLiteral("%1\n%2").arg(i.title, i.detail);
    case Qt::ToolTipRole:
        return i.detail;
    case KindRole:
        return int(i.kind);
    case AgentIdRole:
        return i.agentId;
    case ServiceRole:
        return i.service;
    case RequestIdRole:
        return i.requestId;
    case TitleRole:
        return i.title;
    case DetailRole:
        return i.detail;
    case RequestRole:
        return i.request;
    default:
        return {};
    }
}

bool InboxModel::answer(int row, bool granted, const QString &remember) {
    const Item item = m_items.value(row);
    if (item.kind != Kind::Permission || !item.session)
        return false;
    // The item goes when the service says the request is resolved (permission_resolved).
    item.session->answerPermission(item.requestId, granted, remember);
    return true;
}

int InboxModel::rowOfRequest(const MonitorSession *session, const QString &requestId) const {
    for (int row = 0; row < m_items.size(); ++row) {
        const Item &i = m_items.at(row);
        if (i.kind == Kind::Permission && i.session == session && i.requestId == requestId)
            return row;
    }
    return -1;
}

void InboxModel::markSeen(MonitorSession *session, const QString &agentId) {
    removeWhere([&](const Item &i) {
        return i.session == session && i.agentId == agentId && i.kind == Kind::Finished;
    });
}

} // namespace flotilla::monitor
