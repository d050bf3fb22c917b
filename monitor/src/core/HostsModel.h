#pragma once
// The machines a service runs agents on (docs/api.md "Hosts"): one row per host, `local` first,
// as GET /api/hosts lists them and host_created / host_updated / host_deleted change them, with
// what the last check of each found (POST /api/hosts/:name/check: latency, the CLIs' versions).
// A snapshot is diffed against the rows like AgentsModel's, so views keep their selection across
// a reconnect. The agents column counts the agents the monitor sees on each host
// (setAgentCounts), since the service sends no event when that number changes.

#include <QAbstractTableModel>
#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace flotilla::monitor {

class HostsModel final : public QAbstractTableModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HostsModel)
public:
    enum Column { Name, Ssh, State, Error, Agents, Latency, Claude, Codex, Git, ColumnCount };
    enum Role {
        HostNameRole = Qt::UserRole + 1,
        HostJsonRole,  // the host object
        CheckJsonRole, // the last check's answer; empty: never checked
    };

    explicit HostsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    void applySnapshot(const QJsonArray &hosts); // GET /api/hosts
    void upsert(const QJsonObject &host);        // host_created, host_updated, a POST's answer
    void remove(const QString &name);            // host_deleted, a DELETE's 204
    void setCheck(const QString &name, const QJsonObject &check); // a check's answer
    // How many agents each host has (by name; a host not named has none). Until the first call
    // the host object's own `agents` is shown.
    void setAgentCounts(const QHash<QString, int> &counts);

    int rowOf(const QString &name) const; // -1 if unknown
    QJsonObject host(const QString &name) const;
    QJsonObject check(const QString &name) const;
    QStringList names() const; // in row order

private:
    void emitRow(int row, int first, int last);

    QList<QJsonObject> m_rows;
    QHash<QString, QJsonObject> m_checks; // by host name
    std::optional<QHash<QString, int>> m_agentCounts;
};

// The host an agent runs on: its `host`, `local` when it has none (an older service).
QString hostOfAgent(const QJsonObject &agent);
// One line for a check's answer: "reachable in 42 ms as ann (home /home/ann); claude 2.1.3,
// codex missing, git 2.39.2", or "unreachable: <ssh's words>".
QString checkSummary(const QJsonObject &check);

} // namespace flotilla::monitor
