#pragma once
// The selected agent: a header (class icon, name, skills, status, task), its conversation
// (ConversationView over the session's TranscriptModel for that agent, with a find bar; older
// history loaded when scrolled to the top), a search tab, the Changes tab of an agent with a
// worktree, its usage and budget, and the message box (with the saved prompts that apply to the
// agent).

#include <QHash>
#include <QWidget>

class QLabel;
class QTabWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class ChangesPanel;
class ConversationView;
class FindBar;
class HistorySearchPanel;
class MessageComposer;

class AgentPane final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(AgentPane)
public:
    explicit AgentPane(MonitorSession &session, QWidget *parent = nullptr);

    void setAgent(const QString &agentId); // empty: nothing selected
    QString agentId() const { return m_agentId; }
    void focusMessage();
    void focusSearch();
    // Older entries: those the view has not rendered yet, else the previous history page.
    void loadOlder();
    void openFind(); // the find bar of the conversation
    // Ctrl+F means find in the conversation (rather than filter the agents) while the
    // conversation or its find bar has the focus.
    bool conversationHasFocus() const;

    ConversationView *conversationView() const { return m_conversation; }
    FindBar *findBar() const { return m_find; }
    MessageComposer *composer() const { return m_composer; }
    HistorySearchPanel *searchPanel() const { return m_search; }
    ChangesPanel *changesPanel() const { return m_changes; }
    void showChanges(); // the Changes tab (an agent with a git worktree)
    QLabel *classIconLabel() const { return m_classIcon; }
    QLabel *skillsLabel() const { return m_skills; }

private:
    void updateHeader();
    void updateClassIcon();
    void loadPrompts(); // the saved prompts of the agent, into the message box's menu
    void send(const QString &text);
    void fetchOlderHistory();

    MonitorSession &m_session;
    QString m_agentId;
    QLabel *m_classIcon;
    QLabel *m_title;
    QLabel *m_skills;
    QLabel *m_detail;
    QLabel *m_usage;
    QLabel *m_historyState;
    QTabWidget *m_tabs;
    QWidget *m_conversationPage;
    ConversationView *m_conversation;
    FindBar *m_find;
    HistorySearchPanel *m_search;
    ChangesPanel *m_changes;
    MessageComposer *m_composer;
    QHash<QString, bool> m_hasMore; // agentId -> older history exists (absent: unknown)
    bool m_loading = false;
    quint64 m_promptsGeneration = 0;
    QString m_classIconKey; // what m_classIcon shows
};

} // namespace flotilla::monitor::ui
