#pragma once
// The message box under an agent's output: multi-line text, Ctrl+Enter (or the button) sends.
// The text is cleared only once the service accepted it, so a refusal never loses a message.

#include <QWidget>

class QPlainTextEdit;
class QPushButton;

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

Q_SIGNALS:
    void sendRequested(const QString &text);

private:
    void trySend();

    QPlainTextEdit *m_edit;
    QPushButton *m_send;
};

} // namespace flotilla::monitor::ui
