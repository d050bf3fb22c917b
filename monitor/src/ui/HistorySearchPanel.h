#pragma once
// Search in an agent's conversation history (GET /api/agents/:id/search through
// MonitorSession::searchHistory): a query box, the matches newest first, the selected match in
// full below.

#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class HistorySearchPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HistorySearchPanel)
public:
    explicit HistorySearchPanel(MonitorSession &session, QWidget *parent = nullptr);

    void setAgent(const QString &agentId);
    void focusQuery();
    void search(const QString &query);
    QListWidget *results() const { return m_results; }

private:
    void showMatch();

    MonitorSession &m_session;
    QString m_agentId;
    QLineEdit *m_query;
    QLabel *m_summary;
    QListWidget *m_results;
    QPlainTextEdit *m_detail;
    int m_generation = 0; // answers for an older query or agent are dropped
};

} // namespace flotilla::monitor::ui
