#pragma once
// The agents table: filter box + QTableView over AgentsProxy over AgentsModel, the context bar
// delegate, multi-selection. Selection is tracked by agent id, so it survives resorting,
// filtering and a model reset (should one ever happen on resync).

#include <QStringList>
#include <QWidget>

class QLineEdit;
class QTableView;

namespace flotilla::monitor {
class AgentsModel;
}

namespace flotilla::monitor::ui {

class AgentsProxy;

class AgentsView final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentsView)
public:
    explicit AgentsView(AgentsModel &model, QWidget *parent = nullptr);

    QStringList selectedAgentIds() const;
    QString currentAgentId() const;
    void selectAgent(const QString &agentId);
    void focusFilter();

    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
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

    AgentsModel &m_model;
    AgentsProxy *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
    QStringList m_savedSelection;
    QString m_savedCurrent;
    QString m_lastCurrent;
};

} // namespace flotilla::monitor::ui
