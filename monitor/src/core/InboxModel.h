#pragma once
// The inbox: one list of what needs the user, across every agent of every connected
// service. Three kinds, newest first:
//  - a pending permission request (until it is resolved, whoever answers it);
//  - an agent that failed (status `error`), until it leaves that status;
//  - an agent that finished a turn (working -> idle) since the user last looked at it
//    (markSeen(), when the agent is selected), so a finished reply is not missed.
// Fed by the sessions' own models and signals; answering goes back through the session that
// holds the request. Widgets-free: tested against real services.

#include <QAbstractListModel>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QPointer>

#include <functional>

namespace flotilla::monitor {

class MonitorSession;

class InboxModel final : public QAbstractListModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(InboxModel)
public:
    enum class Kind { Permission, Failed, Finished };
    enum Role {
        KindRole = Qt::UserRole + 1, // int(Kind)
        AgentIdRole,
        ServiceRole, // the service's name, as the user saved it
        RequestIdRole,
        TitleRole,   // "agent-1 wants Bash"
        DetailRole,  // one line: the command, the path, the error
        RequestRole, // QJsonObject: the permission_request payload (Permission only)
    };

    struct Item {
        Kind kind = Kind::Permission;
        MonitorSession *session = nullptr;
        QString service;
        QString agentId;
        QString agentName;
        QString requestId; // Permission only
        QString title;
        QString detail;
        qint64 timestamp = 0;
        QJsonObject request; // Permission only: the permission_request payload
    };

    explicit InboxModel(QObject *parent = nullptr);
    ~InboxModel() override;

    // Watches a session (several may be added: one per service). `service` names it in the list.
    void addSession(MonitorSession *session, const QString &service);
    void removeSession(MonitorSession *session);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    Item item(int row) const { return m_items.value(row); }
    // The row of a permission request of `session`, -1 when it is not (or no longer) listed.
    int rowOfRequest(const MonitorSession *session, const QString &requestId) const;

    // Answers the permission request at `row`; `remember` "", "agent", "project" or "global"
    // (a standing rule the service stores before answering). False if the row is not a request.
    bool answer(int row, bool granted, const QString &remember = {});
    // The user looked at the agent: its "finished" item goes.
    void markSeen(MonitorSession *session, const QString &agentId);

    // One line of what a tool use wants to do: the command, the file, the pattern.
    static QString describeToolInput(const QString &tool, const QJsonObject &input);

Q_SIGNALS:
    // A new item (not one replayed on a reconnect while it was already listed): for the tray.
    void itemAdded(const flotilla::monitor::InboxModel::Item &item);

private:
    void onPermission(MonitorSession *session, const QJsonObject &request);
    void onResolved(MonitorSession *session, const QString &requestId);
    void onAgentsChanged(MonitorSession *session);
    void add(const Item &item);
    void removeWhere(const std::function<bool(const Item &)> &pred);

    struct Watched {
        QPointer<MonitorSession> session;
        QString service;
        QHash<QString, QString> lastStatus; // agentId -> status seen last
    };
    QList<Watched> m_sessions;
    QList<Item> m_items; // newest first
};

} // namespace flotilla::monitor
