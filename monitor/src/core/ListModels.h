#pragma once
// The small lists the monitor shows beside the agents: running exec tasks (with their live
// output), notifications, pending permission requests, a boss's delegation decisions. Each is a
// QAbstractListModel fed by MonitorSession from events; DisplayRole is a one-line summary,
// JsonRole the event payload.

#include <QAbstractListModel>
#include <QJsonObject>
#include <QList>

namespace flotilla::monitor {

class JsonListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { JsonRole = Qt::UserRole + 1, IdRole };
    // `idKey`: the payload key that identifies an item ("taskId", "id", ...); `limit`: the newest
    // `limit` items are kept.
    JsonListModel(QString idKey, int limit, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

    void prepend(const QJsonObject &item); // newest first
    void append(const QJsonObject &item);
    void update(const QString &id, const QJsonObject &changes); // merge keys
    void remove(const QString &id);
    void reset(const QList<QJsonObject> &items);
    int rowOf(const QString &id) const;
    QJsonObject item(int row) const;
    QJsonObject itemById(const QString &id) const;

protected:
    virtual QString summary(const QJsonObject &item) const;

private:
    QString m_idKey;
    int m_limit;
    QList<QJsonObject> m_items;
};

// exec tasks: {taskId, agentId, agentName, command, startedAt, output (last 64 KiB), done,
// exitCode}. exec_task_output appends to output; exec_task_completed marks done (kept 60 s).
class TasksModel final : public JsonListModel {
    Q_OBJECT
public:
    // Monitor-side keys of a task item (not on the wire).
    static constexpr QLatin1String DoneKey{"done"};

    explicit TasksModel(QObject *parent = nullptr);
    void appendOutput(const QString &taskId, const QString &text);

protected:
    QString summary(const QJsonObject &item) const override;
};

} // namespace flotilla::monitor
