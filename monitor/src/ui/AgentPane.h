#pragma once
// The selected agent: a header (name, status, task), its live output (OutputView over the
// session's OutputModel for that agent; older pages loaded when scrolled to the top), a search
// tab, and the message box.

#include <QHash>
#include <QWidget>

class QLabel;
class QTabWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class HistorySearchPanel;
class MessageComposer;
class OutputView;

class AgentPane final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentPane)
public:
    explicit AgentPane(MonitorSession &session, QWidget *parent = nullptr);

    void setAgent(const QString &agentId); // empty: nothing selected
    QString agentId() const { return m_agentId; }
    void focusMessage();
    void focusSearch();
    void loadOlder();

    OutputView *outputView() const { return m_output; }
    MessageComposer *composer() const { return m_composer; }
    HistorySearchPanel *searchPanel() const { return m_search; }

private:
    void updateHeader();
    void send(const QString &text);

    MonitorSession &m_session;
    QString m_agentId;
    QLabel *m_title;
    QLabel *m_detail;
    QLabel *m_historyState;
    QTabWidget *m_tabs;
    OutputView *m_output;
    HistorySearchPanel *m_search;
    MessageComposer *m_composer;
    QHash<QString, bool> m_hasMore; // agentId -> older history exists (absent: unknown)
    bool m_loading = false;
};

} // namespace flotilla::monitor::ui
