#pragma once
// The Changes tab of an agent with a git worktree: what it changed against its base (file list,
// coloured diff), line comments sent as a review (the agent's next message), and a
// merge with the strategy chosen, reporting conflicts inline. Follows worktree_diff_changed, so
// it never polls; fetches only while shown (Refresh: Alt+R; F5 stays the window's Reconnect).

#include "core/WorktreeDiff.h"

#include <QJsonArray>
#include <QWidget>
#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QTextEdit;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class ChangesPanel final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ChangesPanel)
public:
    // Asked before a merge changes the target's checkout; the default asks with a message box.
    using Confirm = std::function<bool(const QString &question)>;

    explicit ChangesPanel(MonitorSession &session, QWidget *parent = nullptr);

    void setAgent(const QString &agentId);
    void refresh(); // fetches the diff again (no-op without a worktree)
    void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }

    // Adds a comment on the diff view's current line (the cursor's); false when that line is
    // not in the agent's worktree (headers, removed lines) or the text is empty.
    bool addComment(const QString &body);
    void sendReview();
    void merge();

    const WorktreeDiff &diff() const { return m_diff; }
    QJsonArray pendingComments() const { return m_pending; }
    QListWidget *fileList() const { return m_files; }
    QTextEdit *diffView() const { return m_view; }
    QComboBox *strategyBox() const { return m_strategy; }
    QLabel *resultLabel() const { return m_result; }
    QLabel *summaryLabel() const { return m_summary; }

Q_SIGNALS:
    void diffLoaded(); // after each fetch, successful or not (tests wait for it)
    void mergeFinished(bool merged);
    void reviewSent(bool sent);

protected:
    void showEvent(QShowEvent *event) override;

private:
    bool hasWorktree() const;
    void applyDiff(const WorktreeDiff &diff);
    void showFile();
    void updateCommentTarget();
    void updateButtons();
    void showResult(const QString &text, bool error);

    MonitorSession &m_session;
    Confirm m_confirm;
    QString m_agentId;
    WorktreeDiff m_diff;
    QList<PatchLine> m_shown; // one per block of the diff view
    QJsonArray m_pending;     // comments not sent yet: {path, line, body}
    bool m_dirty = true;      // the diff changed (or the agent) since the last fetch
    bool m_busy = false;
    quint64 m_generation = 0; // a diff answer for an older request is dropped
    QLabel *m_summary;
    QPushButton *m_refresh;
    QListWidget *m_files;
    QTextEdit *m_view;
    QLabel *m_commentTarget;
    QLineEdit *m_commentEdit;
    QListWidget *m_comments;
    QLineEdit *m_reviewMessage;
    QPushButton *m_send;
    QComboBox *m_strategy;
    QLineEdit *m_mergeMessage;
    QPushButton *m_merge;
    QLabel *m_result;
};

} // namespace flotilla::monitor::ui
