#include "ui/BossPanel.h"

#include "core/MonitorSession.h"
#include "ui/ContextBarDelegate.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QLabel>
#include <QListView>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

BossPanel::BossPanel(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_header(new QLabel(this))
    , m_teamProxy(new QSortFilterProxyModel(this))
    , m_team(new QTableView(this))
    , m_delegations(new QListView(this)) {
    m_header->setWordWrap(true); // a narrow column must not widen the dock
    m_team->setObjectName(QStringLiteral("bossTeam"));
    m_delegations->setObjectName(QStringLiteral("delegationsList"));
    m_teamProxy->setSourceModel(&m_session.agents());
    m_teamProxy->setFilterRole(AgentsModel::AgentIdRole);
    m_teamProxy->setFilterKeyColumn(AgentsModel::Name);
    m_team->setModel(m_teamProxy);
    m_team->setItemDelegateForColumn(AgentsModel::Context, new ContextBarDelegate(m_team));
    m_team->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_team->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_team->verticalHeader()->hide();
    m_team->horizontalHeader()->setStretchLastSection(true);
    m_team->setColumnHidden(AgentsModel::Class, true);
    m_delegations->setModel(&m_session.delegations());
    m_delegations->setUniformItemSizes(true);
    m_delegations->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_delegations->setAlternatingRowColors(true);

    // The panel lives in the window's right-hand column: team over delegations.
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_team);
    split->addWidget(m_delegations);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_header);
    layout->addWidget(split, 1);

    connect(m_team, &QTableView::activated, this, [this](const QModelIndex &i) {
        Q_EMIT agentActivated(i.data(AgentsModel::AgentIdRole).toString());
    });
    // The team changes through agent_updated on the boss (subordinateIds).
    connect(&m_session.agents(), &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &tl, const QModelIndex &br) {
                const int row = m_session.agents().rowOf(m_bossId);
                if (row >= tl.row() && row <= br.row())
                    refreshTeam();
            });
    connect(&m_session.agents(), &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_bossId.isEmpty() && m_session.agents().rowOf(m_bossId) < 0)
            setCurrentAgent({});
    });
    refreshTeam();
}

void BossPanel::setCurrentAgent(const QString &agentId) {
    const QJsonObject a = m_session.agents().agent(agentId);
    QString boss;
    if (a.value(QStringLiteral("isBoss")).toBool())
        boss = agentId;
    else
        boss = a.value(QStringLiteral("bossId")).toString();
    if (boss == m_bossId)
        return;
    m_bossId = boss;
    if (!boss.isEmpty())
        m_session.selectBoss(boss);
    refreshTeam();
}

void BossPanel::refreshTeam() {
    if (m_bossId.isEmpty()) {
        m_header->setText(tr("Select a boss agent (or one of its team) to see its team and "
                             "delegation decisions."));
        // Matches nothing: an empty team.
        m_teamProxy->setFilterRegularExpression(QRegularExpression(QStringLiteral("^$")));
        return;
    }
    const QJsonObject boss = m_session.agents().agent(m_bossId);
    QStringList ids;
    for (const QJsonValue &v : boss.value(QStringLiteral("subordinateIds")).toArray())
        ids << QRegularExpression::escape(v.toString());
    m_header->setText(tr("Boss %1: %n subordinate(s)", nullptr, int(ids.size()))
                          .arg(boss.value(QStringLiteral("name")).toString()));
    m_teamProxy->setFilterRegularExpression(QRegularExpression(
        ids.isEmpty() ? QStringLiteral("^$")
                      : QStringLiteral("^(") + ids.join(QLatin1Char('|')) + QStringLiteral(")$")));
}

} // namespace flotilla::monitor::ui
