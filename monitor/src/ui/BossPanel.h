#pragma once
// The boss view: the team of the selected boss (a filtered view of AgentsModel, so it updates
// live) and its delegation decisions (MonitorSession::selectBoss + delegations()). Selecting a
// subordinate shows its boss's team.

#include <QWidget>

class QLabel;
class QListView;
class QSortFilterProxyModel;
class QTableView;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class BossPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BossPanel)
public:
    explicit BossPanel(MonitorSession &session, QWidget *parent = nullptr);

    void setCurrentAgent(const QString &agentId);
    QString bossId() const { return m_bossId; }
    QTableView *team() const { return m_team; }
    QListView *delegations() const { return m_delegations; }

Q_SIGNALS:
    void agentActivated(const QString &agentId);

private:
    void refreshTeam();

    MonitorSession &m_session;
    QString m_bossId;
    QLabel *m_header;
    QSortFilterProxyModel *m_teamProxy;
    QTableView *m_team;
    QListView *m_delegations;
};

} // namespace flotilla::monitor::ui
