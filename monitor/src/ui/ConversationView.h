#pragma once
// The conversation of the selected agent as a chat transcript: a read-only QTextBrowser whose
// document follows a TranscriptModel incrementally. Finished entries are inserted once; the reply
// being streamed is re-rendered in place at most once a frame (its deltas coalesced), and only from
// its last complete paragraph on, so a long reply costs no more per frame than a short one; a tool
// row's header toggles its details. Only a window of the newest entries is in the document (older
// ones are rendered when scrolled to the top, then history is asked for), so a long session costs a
// bounded document. The view follows the tail while the user is at the bottom and keeps what they
// read in place otherwise. Links open outside only for http(s); nothing else runs.

#include <QHash>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>

namespace flotilla::monitor {
class TranscriptModel;
struct TranscriptEntry;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class TranscriptRenderer;

class ConversationView final : public QTextBrowser {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ConversationView)
public:
    explicit ConversationView(QWidget *parent = nullptr);
    ~ConversationView() override;

    void setTranscript(TranscriptModel *model); // nullptr: empty
    // The agent's sandbox confines its commands: refused writes in tool outputs get a hint.
    void setSandboxed(bool sandboxed);
    TranscriptModel *transcript() const { return m_model; }
    bool isFollowing() const { return m_follow; }
    int firstRenderedRow() const { return m_first; }
    int renderedCount() const { return int(m_lengths.size()); }

    // Find in what is rendered: selects the next (or previous) match after the cursor, wrapping
    // around, and highlights every match. {current 1-based, total}; {0, 0} when none.
    struct FindResult {
        int current = 0;
        int total = 0;
    };
    FindResult findText(const QString &text, bool backward = false);
    void clearFind();

    // How much is rendered: the newest entries at first, older ones in steps when scrolled to
    // the top, and the window cut back while following the tail.
    static constexpr int kInitialEntries = 150;
    static constexpr int kOlderStep = 100;
    static constexpr int kMaxRendered = 600;
    static constexpr int kTrimTo = 450;
    static constexpr int kStreamIntervalMs = 16;      // at most one render a frame...
    static constexpr int kMaxStreamIntervalMs = 1000; // ...fewer for a long reply
    // A document keeps every format it ever used (each list and each tool row's link has its
    // own): after this many renders it is rebuilt, at a moment the view follows the tail.
    static constexpr int kCompactAfterRenders = 2000;
    static constexpr int kMaxHighlights = 500;

    // Renders up to kOlderStep entries above the window; false when everything the model holds
    // is rendered already (then only a history page brings more).
    bool showOlder();

Q_SIGNALS:
    void topReached(); // scrolled to the top with everything rendered: time for a history page

protected:
    // Never loads anything: an image in a reply must not read a local file or the network.
    QVariant loadResource(int type, const QUrl &name) override;
    void keyPressEvent(QKeyEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void rebuild();
    int positionOf(int index) const; // document position where rendered entry `index` starts
    int renderAt(int index, int row);
    void removeRendered(int index, int count);
    void removeRange(QTextCursor &c, int start, int length);
    void rerender(int row);
    bool rerenderTail(int index, const TranscriptEntry &e); // false: the whole entry is due
    void trimWindow();
    void onInserted(int first, int last);
    void onRemoved(int first, int last);
    void onChanged(int first, int last);
    void onAnchor(const QUrl &url);
    void onScrolled(int value);
    void flushStreaming();
    void scheduleScrollToBottom();
    void scrollToBottomNow();
    double entryTop(int index) const; // y of a rendered entry (or of the end) in the document
    // Runs `change` keeping the entry that is rendered at `before` (at `after` once changed) at
    // the same place on screen, unless the view follows the tail.
    void keepInPlace(int before, int after, const std::function<void()> &change);

    TranscriptModel *m_model = nullptr;
    QList<QMetaObject::Connection> m_connections;
    std::unique_ptr<TranscriptRenderer> m_renderer;
    int m_first = 0;           // model row of the first rendered entry
    std::deque<int> m_lengths; // document characters of each rendered entry, in row order
    QTimer m_streamTimer;
    QList<quint64> m_dirty; // ids of streaming entries waiting for the next render
    // A streaming reply rendered in two parts: where its text was cut (stableSplit) and how many
    // document characters its spacer and stable part take, by entry id.
    struct StreamCut {
        qsizetype split = 0;
        int headChars = 0;
    };
    QHash<quint64, StreamCut> m_cuts;
    int m_renders = 0; // since the document was last rebuilt
    bool m_follow = true;
    bool m_scrollPending = false;
    bool m_adjusting = false; // a scroll the view makes itself
    QString m_findText;
};

} // namespace flotilla::monitor::ui
