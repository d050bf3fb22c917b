#pragma once
// Find in the conversation (Ctrl+F while it has focus): a bar under the view with the text,
// previous / next, "3 of 12", and a close button. Enter finds the next match, Shift+Enter the
// previous, Escape closes the bar and hands focus back to the view.

#include <QWidget>

class QLabel;
class QLineEdit;

namespace flotilla::monitor::ui {

class ConversationView;

class FindBar final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FindBar)
public:
    explicit FindBar(ConversationView &view, QWidget *parent = nullptr);

    void open();    // shows the bar, focuses the text (selected)
    void dismiss(); // hides the bar, clears the highlights, focus back to the view
    void findNext(bool backward = false);
    QLineEdit *edit() const { return m_edit; }
    QString status() const; // "3 of 12", "No matches", empty

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void showCount(int current, int total);

    ConversationView &m_view;
    QLineEdit *m_edit;
    QLabel *m_count;
};

} // namespace flotilla::monitor::ui
