#pragma once
// The live output list: a QListView with uniform item sizes over an OutputModel (bounded), the
// OutputDelegate, and the scrolling rules of a terminal: it follows new lines while the user is
// at the bottom, stays put when they scrolled up, keeps the visible lines in place when older
// history is inserted above them, and asks for older history when scrolled to the very top.

#include <QListView>

namespace flotilla::monitor {
class OutputModel;
}

namespace flotilla::monitor::ui {

class OutputView final : public QListView {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputView)
public:
    explicit OutputView(QWidget *parent = nullptr);

    void setOutputModel(OutputModel *model); // nullptr: empty
    OutputModel *outputModel() const { return m_model; }
    bool isFollowing() const { return m_follow; }
    QString selectedText() const;

Q_SIGNALS:
    void topReached(); // the user scrolled to the first row: time for an older page

protected:
    void keyPressEvent(QKeyEvent *event) override;

private:
    void onAboutToInsert(const QModelIndex &parent, int first, int last);
    void onInserted(const QModelIndex &parent, int first, int last);
    void onScrolled(int value);
    void scheduleScrollToBottom();

    OutputModel *m_model = nullptr;
    QList<QMetaObject::Connection> m_connections;
    bool m_follow = true;
    bool m_prepending = false;
    bool m_scrollPending = false;
    int m_valueBeforePrepend = 0;
    int m_maxBeforePrepend = 0;
};

} // namespace flotilla::monitor::ui
