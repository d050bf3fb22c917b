#pragma once
// The message box under an agent's output: multi-line text, Ctrl+Enter (or the button) sends.
// The text is cleared only once the service accepted it, so a refusal never loses a message.
// The Prompts button offers the saved prompts that apply to the agent: the one chosen replaces
// the text, to be edited before it is sent.

#include <QWidget>

class QMenu;
class QPlainTextEdit;
class QPushButton;
class QToolButton;

namespace flotilla::monitor::ui {

class MessageComposer final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(MessageComposer)
public:
    explicit MessageComposer(QWidget *parent = nullptr);

    QString text() const;
    void setText(const QString &text);
    void clearAfterSend();
    void setBusy(bool busy); // while a send is in flight
    void focusEditor();
    QPlainTextEdit *editor() const { return m_edit; }
    // The saved prompts offered: {name, text} in order; none: the button is disabled.
    void setPrompts(const QList<QPair<QString, QString>> &prompts);
    QMenu *promptsMenu() const { return m_promptsMenu; }
    QToolButton *promptsButton() const { return m_prompts; }

Q_SIGNALS:
    void sendRequested(const QString &text);

private:
    void trySend();

    QPlainTextEdit *m_edit;
    QToolButton *m_prompts;
    QMenu *m_promptsMenu;
    QPushButton *m_send;
};

} // namespace flotilla::monitor::ui
