#pragma once
// The agents table: filter box + QTableView over AgentsProxy over the AgentsModels of every
// service the window shows (concatenated; a Service column once there are several, a Host column
// and a host filter once the first service has hosts besides "local"), the context bar delegate,
// multi-selection. Selection is tracked by agent id (unique across services), so it survives
// resorting, filtering, a service added or removed and a model reset.

#include <QList>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QConcatenateTablesProxyModel;
class QLineEdit;
class QModelIndex;
class QTableView;

namespace flotilla::monitor {
class AgentsModel;
class HostsModel;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class AgentsProxy;

class AgentsView final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentsView)
public:
    explicit AgentsView(AgentsModel &model, QWidget *parent = nullptr);

    // Another service's agents beside the first one's; removed before the model goes.
    void addModel(AgentsModel &model);
    void removeModel(AgentsModel &model);
    // The hosts the host filter offers ("All hosts" first), kept in step with `hosts`.
    void setHostsModel(const HostsModel &hosts);

    QStringList selectedAgentIds() const;
    QString currentAgentId() const;
    void selectAgent(const QString &agentId);
    void focusFilter();

    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
    QComboBox *hostFilter() const { return m_hostFilter; }
    AgentsProxy *proxy() const { return m_proxy; }
    QByteArray saveHeaderState() const;
    void restoreHeaderState(const QByteArray &state);

Q_SIGNALS:
    void currentAgentChanged(const QString &agentId); // empty: none
    void selectionChanged(const QStringList &agentIds);

private:
    void rememberSelection();
    void restoreSelection();
    void emitCurrent();
    void fillHostFilter();
    QModelIndex proxyIndexOf(const QString &agentId) const; // invalid if not shown

    QList<AgentsModel *> m_models;
    QConcatenateTablesProxyModel *m_all;
    AgentsProxy *m_proxy;
    QLineEdit *m_filter;
    QComboBox *m_hostFilter;
    const HostsModel *m_hosts = nullptr;
    QTableView *m_table;
    QStringList m_savedSelection;
    QString m_savedCurrent;
    QString m_lastCurrent;
};

} // namespace flotilla::monitor::ui
