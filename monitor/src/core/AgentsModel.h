#pragma once
// The agents table: one row per agent, kept in step with the service's events. A snapshot
// (agents_update, sent on every (re)connect) is diffed against the rows: changed rows emit
// dataChanged, new ones are inserted, vanished ones removed: never a model reset, so views keep
// selection and scroll position across a reconnect. agent_updated carries only the changed keys.

#include <QAbstractTableModel>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

namespace flotilla::monitor {

class AgentsModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentsModel)
public:
    enum Column {
        Name,
        Class,
        Provider,
        Status,
        CurrentTool,
        Context,
        Task,
        Usage,
        Service,
        Host, // last, so the columns before it keep their indexes (and saved header states)
        ColumnCount
    };
    enum Role {
        AgentIdRole = Qt::UserRole + 1,
        ContextFractionRole, // double 0..1 (contextUsed / contextLimit), for the bar delegate
        ContextUsedRole,     // qint64
        ContextLimitRole,    // qint64
        AgentJsonRole,       // the whole agent object
        SortRole,            // what the proxy sorts by (numbers for Context)
        SandboxedRole,       // bool: its effective sandbox confines its commands (the Name's badge)
        SandboxBlockedRole,  // int: connections its sandbox refused while this monitor watched
    };

    explicit AgentsModel(QObject *parent = nullptr);

    // The service's name in the Service column, when one window shows several services.
    void setServiceName(const QString &name);
    QString serviceName() const { return m_serviceName; }
    // The service's sandbox for auto agents without one of their own (GET /api/health
    // `sandbox.default`; empty: not known), for the badge and the Name's tooltip (SandboxText.h).
    void setSandboxDefault(const QString &mode);
    QString sandboxDefault() const { return m_sandboxDefault; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void applySnapshot(const QJsonArray &agents);                          // agents_update
    void upsert(const QJsonObject &agent);                                 // agent_created
    void applyChanges(const QString &agentId, const QJsonObject &changes); // agent_updated
    void setContext(const QString &agentId, qint64 used, qint64 limit);    // context_update
    void remove(const QString &agentId);                                   // agent_deleted
    // sandbox_blocked: the agent's sandbox refused a connection to `where` (host:port). Counted
    // while this monitor runs, for the Name's tooltip (SandboxText.h sandboxBlockedTally).
    void noteSandboxBlocked(const QString &agentId, const QString &where);

    int rowOf(const QString &agentId) const; // -1 if unknown
    QJsonObject agent(const QString &agentId) const;
    QString agentIdAt(int row) const;
    QStringList agentIds() const;

private:
    QList<QJsonObject> m_rows;
    QHash<QString, int> m_rowById;
    struct Blocked {
        int count = 0;
        QString last; // host:port
    };
    QHash<QString, Blocked> m_blocked; // by agent id
    QString m_serviceName;
    QString m_sandboxDefault;
};

} // namespace flotilla::monitor
