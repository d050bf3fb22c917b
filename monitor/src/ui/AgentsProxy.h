#pragma once
// Sort/filter proxy over AgentsModel: the filter matches any column (name, class, status, tool,
// task label, host), a host filter keeps the agents of one host only, sorting uses
// AgentsModel::SortRole (numbers for the context column), and the Status column gets a coloured dot
// so a glance finds the agents that need attention; a sandboxed agent's name gets a padlock (its
// tooltip says what the sandbox allows).

#include <QIcon>
#include <QSortFilterProxyModel>

namespace flotilla::monitor::ui {

class AgentsProxy final : public QSortFilterProxyModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentsProxy)
public:
    explicit AgentsProxy(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    static QColor statusColour(const QString &status);
    static QIcon sandboxIcon();

    // Only the agents on `host` (a host's name); empty: every host.
    void setHostFilter(const QString &host);
    QString hostFilter() const { return m_host; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_host;
};

} // namespace flotilla::monitor::ui
