#include "ui/AgentsView.h"

#include "core/AgentsModel.h"
#include "core/HostsModel.h"
#include "ui/AgentsProxy.h"
#include "ui/ContextBarDelegate.h"

#include <QComboBox>
#include <QConcatenateTablesProxyModel>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QTableView>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

AgentsView::AgentsView(AgentsModel &model, QWidget *parent)
    : QWidget(parent)
    , m_models{&model}
    , m_all(new QConcatenateTablesProxyModel(this))
    , m_proxy(new AgentsProxy(this))
    , m_filter(new QLineEdit(this))
    , m_hostFilter(new QComboBox(this))
    , m_table(new QTableView(this)) {
    m_all->addSourceModel(&model);
    m_proxy->setSourceModel(m_all);
    m_filter->setObjectName(QStringLiteral("agentFilter"));
    m_filter->setPlaceholderText(
        tr("Filter agents (Ctrl+F): name, class, status, tool, task, host"));
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &AgentsProxy::setFilterFixedString);
    m_hostFilter->setObjectName(QStringLiteral("hostFilter"));
    m_hostFilter->setToolTip(tr("Show the agents of one host only"));
    m_hostFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_hostFilter->hide(); // until the service has a host besides "local"
    connect(m_hostFilter, &QComboBox::currentIndexChanged, this,
            [this] { m_proxy->setHostFilter(m_hostFilter->currentData().toString()); });

    m_table->setObjectName(QStringLiteral("agentsTable"));
    m_table->setModel(m_proxy);
    m_table->setItemDelegateForColumn(AgentsModel::Context, new ContextBarDelegate(m_table));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(AgentsModel::Name, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 10);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionsMovable(true);
    m_table->setColumnWidth(AgentsModel::Name, 140);
    m_table->setColumnWidth(AgentsModel::Class, 80);
    m_table->setColumnWidth(AgentsModel::Provider, 130);
    m_table->setColumnWidth(AgentsModel::Status, 150);      // "waiting_permission"
    m_table->setColumnWidth(AgentsModel::CurrentTool, 130); // "WebFetch", "commandExecution"
    m_table->setColumnWidth(AgentsModel::Context, 120);
    m_table->setColumnWidth(AgentsModel::Task, 160);
    m_table->setColumnWidth(AgentsModel::Usage, 150);
    m_table->setColumnWidth(AgentsModel::Host, 90);
    m_table->setColumnHidden(AgentsModel::Service, true); // one service: nothing to tell apart
    m_table->setColumnHidden(AgentsModel::Host, true);    // until there is a host besides "local"
    // The host is the model's last column (see AgentsModel::Host); it reads best by the provider.
    QHeaderView *header = m_table->horizontalHeader();
    header->moveSection(header->visualIndex(AgentsModel::Host),
                        header->visualIndex(AgentsModel::Status));

    auto *filters = new QHBoxLayout;
    filters->addWidget(m_filter, 1);
    filters->addWidget(m_hostFilter);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(filters);
    layout->addWidget(m_table);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &AgentsView::emitCurrent);
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { Q_EMIT selectionChanged(selectedAgentIds()); });
    // AgentsModel diffs snapshots, so a reset is not expected; if one happens, the user's
    // selection is put back by id instead of silently lost.
    connect(m_proxy, &QAbstractItemModel::modelAboutToBeReset, this,
            &AgentsView::rememberSelection);
    connect(m_proxy, &QAbstractItemModel::modelReset, this, &AgentsView::restoreSelection);
    // A removed row may have been the current one.
    connect(m_proxy, &QAbstractItemModel::rowsRemoved, this, &AgentsView::emitCurrent);
}

void AgentsView::addModel(AgentsModel &model) {
    if (m_models.contains(&model))
        return;
    rememberSelection();
    m_models.append(&model);
    m_all->addSourceModel(&model);
    m_table->setColumnHidden(AgentsModel::Service, false);
    restoreSelection();
}

void AgentsView::removeModel(AgentsModel &model) {
    if (!m_models.contains(&model) || m_models.size() == 1)
        return;
    rememberSelection();
    m_all->removeSourceModel(&model);
    m_models.removeAll(&model);
    m_table->setColumnHidden(AgentsModel::Service, m_models.size() == 1);
    restoreSelection();
}

void AgentsView::setHostsModel(const HostsModel &hosts) {
    m_hosts = &hosts;
    connect(&hosts, &QAbstractItemModel::rowsInserted, this, &AgentsView::fillHostFilter);
    connect(&hosts, &QAbstractItemModel::rowsRemoved, this, &AgentsView::fillHostFilter);
    connect(&hosts, &QAbstractItemModel::modelReset, this, &AgentsView::fillHostFilter);
    fillHostFilter();
}

void AgentsView::fillHostFilter() {
    const QString keep = m_hostFilter->currentData().toString();
    const QStringList names = m_hosts ? m_hosts->names() : QStringList();
    {
        const QSignalBlocker quiet(m_hostFilter);
        m_hostFilter->clear();
        m_hostFilter->addItem(tr("All hosts"), QString());
        for (const QString &name : names)
            m_hostFilter->addItem(name, name);
        const int at = m_hostFilter->findData(keep);
        m_hostFilter->setCurrentIndex(at < 0 ? 0 : at);
    }
    // A host filtered on that is gone: every agent again.
    m_proxy->setHostFilter(m_hostFilter->currentData().toString());
    // One host only ("local"): nothing to choose between or to tell apart, as with one service.
    const bool several = names.size() > 1;
    m_hostFilter->setVisible(several);
    m_table->setColumnHidden(AgentsModel::Host, !several);
}

QModelIndex AgentsView::proxyIndexOf(const QString &agentId) const {
    for (AgentsModel *m : m_models) {
        const int row = m->rowOf(agentId);
        if (row >= 0)
            return m_proxy->mapFromSource(m_all->mapFromSource(m->index(row, 0)));
    }
    return {};
}

QStringList AgentsView::selectedAgentIds() const {
    QStringList ids;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        ids << i.data(AgentsModel::AgentIdRole).toString();
    return ids;
}

QString AgentsView::currentAgentId() const {
    const QModelIndex i = m_table->selectionModel()->currentIndex();
    return i.isValid() ? i.siblingAtColumn(0).data(AgentsModel::AgentIdRole).toString() : QString();
}

void AgentsView::selectAgent(const QString &agentId) {
    const QModelIndex i = proxyIndexOf(agentId);
    if (!i.isValid())
        return;
    m_table->selectionModel()->setCurrentIndex(i, QItemSelectionModel::ClearAndSelect |
                                                      QItemSelectionModel::Rows);
    m_table->scrollTo(i);
}

void AgentsView::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

QByteArray AgentsView::saveHeaderState() const {
    return m_table->horizontalHeader()->saveState();
}

void AgentsView::restoreHeaderState(const QByteArray &state) {
    if (!state.isEmpty())
        m_table->horizontalHeader()->restoreState(state);
}

void AgentsView::rememberSelection() {
    m_savedSelection = selectedAgentIds();
    m_savedCurrent = currentAgentId();
}

void AgentsView::restoreSelection() {
    QItemSelection selection;
    for (const QString &id : std::as_const(m_savedSelection)) {
        const QModelIndex i = proxyIndexOf(id);
        if (i.isValid())
            selection.select(i, i.siblingAtColumn(m_proxy->columnCount() - 1));
    }
    m_table->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
    const QModelIndex current = proxyIndexOf(m_savedCurrent);
    if (current.isValid())
        m_table->selectionModel()->setCurrentIndex(current, QItemSelectionModel::NoUpdate);
    emitCurrent();
}

void AgentsView::emitCurrent() {
    const QString id = currentAgentId();
    if (id == m_lastCurrent)
        return;
    m_lastCurrent = id;
    Q_EMIT currentAgentChanged(id);
}

} // namespace flotilla::monitor::ui
