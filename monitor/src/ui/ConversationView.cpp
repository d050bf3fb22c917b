#include "ui/ConversationView.h"

#include "core/SandboxText.h"
#include "core/TranscriptModel.h"
#include "ui/TranscriptRenderer.h"
#include "ui/UiLog.h"

#include <QAbstractTextDocumentLayout>
#include <QDesktopServices>
#include <QElapsedTimer>
#include <QImage>
#include <QKeyEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextCursor>

namespace flotilla::monitor::ui {

ConversationView::ConversationView(QWidget *parent)
    : QTextBrowser(parent)
    , m_renderer(std::make_unique<TranscriptRenderer>(font())) {
    setObjectName(QStringLiteral("conversationView"));
    setOpenLinks(false); // every click goes through onAnchor: toggles, http(s), nothing else
    setOpenExternalLinks(false);
    setLineWrapMode(QTextEdit::WidgetWidth);
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    setPlaceholderText(tr("No conversation yet."));
    // Every render is an edit of the document: its undo stack would keep them all.
    document()->setUndoRedoEnabled(false);
    document()->setDocumentMargin(10);
    m_streamTimer.setSingleShot(true);
    m_streamTimer.setInterval(kStreamIntervalMs);
    connect(&m_streamTimer, &QTimer::timeout, this, &ConversationView::flushStreaming);
    connect(this, &QTextBrowser::anchorClicked, this, &ConversationView::onAnchor);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &ConversationView::onScrolled);
    // The range changes as the document is laid out (progressively, on resize, on every edit);
    // following means staying at its end through that, before the clamped value is reported.
    connect(verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int maximum) {
        if (!m_follow)
            return;
        m_adjusting = true;
        verticalScrollBar()->setValue(maximum);
        m_adjusting = false;
    });
}

ConversationView::~ConversationView() = default;

void ConversationView::setTranscript(TranscriptModel *model) {
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_model = model;
    if (model) {
        m_connections << connect(model, &QAbstractItemModel::rowsInserted, this,
                                 [this](const QModelIndex &, int f, int l) { onInserted(f, l); });
        m_connections << connect(model, &QAbstractItemModel::rowsRemoved, this,
                                 [this](const QModelIndex &, int f, int l) { onRemoved(f, l); });
        m_connections << connect(model, &QAbstractItemModel::dataChanged, this,
                                 [this](const QModelIndex &tl, const QModelIndex &br) {
                                     onChanged(tl.row(), br.row());
                                 });
        m_connections << connect(model, &QAbstractItemModel::modelReset, this,
                                 &ConversationView::rebuild);
    }
    rebuild();
}

void ConversationView::setSandboxed(bool sandboxed) {
    if (sandboxed == m_renderer->isSandboxed())
        return;
    m_renderer->setSandboxed(sandboxed);
    if (!m_model)
        return;
    // Only an open tool row whose output a refused write made reads differently.
    const int end = m_first + int(m_lengths.size());
    for (int row = m_first; row < end; ++row) {
        const TranscriptEntry &e = m_model->entry(row);
        if (e.kind == TranscriptEntry::Kind::Tool && e.expanded &&
            !sandboxHint(true, e.toolOutput).isEmpty())
            rerender(row);
    }
}

void ConversationView::rebuild() {
    m_streamTimer.stop();
    m_dirty.clear();
    m_lengths.clear();
    m_cuts.clear();
    clearFind();
    document()->clear();
    m_first = 0;
    m_follow = true;
    if (!m_model)
        return;
    const int rows = m_model->rowCount();
    m_first = std::max(0, rows - kInitialEntries);
    QTextCursor edit(document());
    edit.beginEditBlock(); // one layout for the lot
    for (int row = m_first; row < rows; ++row)
        renderAt(int(m_lengths.size()), row);
    edit.endEditBlock();
    m_renders = 0;
    scrollToBottomNow();
}

int ConversationView::positionOf(int index) const {
    // Summed from the nearer end: most edits are at the tail (the streaming reply).
    const int n = int(m_lengths.size());
    if (index <= n / 2) {
        int pos = 0;
        for (int i = 0; i < index; ++i)
            pos += m_lengths[size_t(i)];
        return pos;
    }
    int pos = document()->characterCount() - 1;
    for (int i = n - 1; i >= index; --i)
        pos -= m_lengths[size_t(i)];
    return pos;
}

int ConversationView::renderAt(int index, int row) {
    const int start = positionOf(index);
    QTextCursor c(document());
    c.setPosition(start);
    m_renderer->render(c, m_model->entry(row));
    ++m_renders;
    const int length = c.position() - start;
    m_lengths.insert(m_lengths.begin() + index, length);
    return length;
}

void ConversationView::removeRange(QTextCursor &c, int start, int length) {
    // The range starts with the separator that ends the block before it. Removing it merges
    // that block with the range's last one, and when the block before is empty (the document's
    // first, or an entry ending in a blank line) Qt keeps the last one's format: put it back.
    const QTextBlock before = document()->findBlock(start);
    const QTextBlockFormat blockFormat = before.blockFormat();
    const QTextCharFormat charFormat = before.charFormat();
    c.setPosition(start);
    c.setPosition(start + length, QTextCursor::KeepAnchor);
    c.removeSelectedText();
    c.setBlockFormat(blockFormat);
    c.setBlockCharFormat(charFormat);
}

void ConversationView::removeRendered(int index, int count) {
    if (count <= 0)
        return;
    const int start = positionOf(index);
    int length = 0;
    for (int i = index; i < index + count; ++i)
        length += m_lengths[size_t(i)];
    QTextCursor c(document());
    c.beginEditBlock();
    removeRange(c, start, length);
    c.endEditBlock();
    m_lengths.erase(m_lengths.begin() + index, m_lengths.begin() + index + count);
}

void ConversationView::rerender(int row) {
    const int index = row - m_first;
    if (index < 0 || index >= int(m_lengths.size()))
        return;
    const TranscriptEntry &e = m_model->entry(row);
    const bool streamingReply = e.streaming && e.kind == TranscriptEntry::Kind::Assistant;
    if (streamingReply && rerenderTail(index, e)) {
        if (m_follow)
            scheduleScrollToBottom();
        return;
    }
    // Replaced in one edit block: one layout and one repaint, so the block never flickers, and
    // what is above it does not move.
    const int start = positionOf(index);
    QTextCursor c(document());
    c.beginEditBlock();
    removeRange(c, start, m_lengths[size_t(index)]);
    if (streamingReply) {
        // In two parts, so the next deltas replace only the tail.
        const qsizetype split = TranscriptRenderer::stableSplit(e.text);
        m_renderer->renderReplyHead(c, e.text.left(split));
        m_cuts.insert(e.id, StreamCut{split, c.position() - start});
        m_renderer->renderReplyTail(c, e.text.mid(split));
    } else {
        m_cuts.remove(e.id);
        m_renderer->render(c, e);
    }
    ++m_renders;
    m_lengths[size_t(index)] = c.position() - start;
    c.endEditBlock();
    if (m_follow)
        scheduleScrollToBottom();
}

bool ConversationView::rerenderTail(int index, const TranscriptEntry &e) {
    const auto cut = m_cuts.find(e.id);
    if (cut == m_cuts.end())
        return false;
    // The text only grows: what was stable stays stable, and a paragraph completed since is
    // rendered onto the stable part, so no delta re-renders what came before it.
    const qsizetype split = TranscriptRenderer::stableSplit(e.text);
    if (split < cut->split)
        return false;
    const int start = positionOf(index);
    QTextCursor c(document());
    c.beginEditBlock();
    removeRange(c, start + cut->headChars, m_lengths[size_t(index)] - cut->headChars);
    if (split > cut->split) {
        m_renderer->renderReplyTail(c, e.text.mid(cut->split, split - cut->split));
        cut->split = split;
        cut->headChars = c.position() - start;
    }
    m_renderer->renderReplyTail(c, e.text.mid(split));
    ++m_renders;
    m_lengths[size_t(index)] = c.position() - start;
    c.endEditBlock();
    return true;
}

bool ConversationView::showOlder() {
    if (!m_model || m_first == 0)
        return false;
    const int n = std::min(kOlderStep, m_first);
    const int first = m_first - n;
    keepInPlace(0, n, [this, n, first] {
        QTextCursor edit(document());
        edit.beginEditBlock();
        for (int i = 0; i < n; ++i)
            renderAt(i, first + i);
        edit.endEditBlock();
    });
    m_first = first;
    return true;
}

void ConversationView::trimWindow() {
    const int size = int(m_lengths.size());
    if (size <= kMaxRendered)
        return;
    const int n = size - kTrimTo;
    removeRendered(0, n);
    m_first += n;
}

void ConversationView::onInserted(int first, int last) {
    const int count = last - first + 1;
    if (m_lengths.empty()) {
        rebuild(); // nothing rendered yet: render the newest entries, whatever came
        return;
    }
    if (first > m_first) {
        // At the end (a new entry; the window always reaches the model's end) or inside it.
        QTextCursor edit(document());
        edit.beginEditBlock();
        for (int row = first; row <= last; ++row)
            renderAt(row - m_first, row);
        edit.endEditBlock();
        if (m_follow)
            scheduleScrollToBottom();
        return;
    }
    if (first < m_first) {
        m_first += count; // above an unrendered part: rendered when scrolled to
        return;
    }
    // Older entries (a history page) right above the first rendered one.
    keepInPlace(0, count, [this, first, count] {
        QTextCursor edit(document());
        edit.beginEditBlock();
        for (int i = 0; i < count; ++i)
            renderAt(i, first + i);
        edit.endEditBlock();
    });
}

void ConversationView::onRemoved(int first, int last) {
    const int count = last - first + 1;
    const int size = int(m_lengths.size());
    const int from = std::max(first, m_first);
    const int to = std::min(last, m_first + size - 1);
    if (from <= to) {
        const int index = from - m_first;
        const int n = to - from + 1;
        if (index == 0 && n < size)
            keepInPlace(n, 0, [this, n] { removeRendered(0, n); }); // the bound dropped them
        else
            removeRendered(index, n);
    }
    if (last < m_first)
        m_first -= count;
    else if (first < m_first)
        m_first = first;
    if (m_follow)
        scheduleScrollToBottom();
}

void ConversationView::onChanged(int first, int last) {
    const int end = std::min(last, m_first + int(m_lengths.size()) - 1);
    for (int row = std::max(first, m_first); row <= end; ++row) {
        const TranscriptEntry &e = m_model->entry(row);
        if (e.streaming) {
            // A reply re-rendered per delta would cost a markdown parse each: 20 a second at most.
            if (!m_dirty.contains(e.id))
                m_dirty.append(e.id);
            if (!m_streamTimer.isActive())
                m_streamTimer.start();
            continue;
        }
        m_dirty.removeAll(e.id);
        rerender(row);
    }
}

void ConversationView::flushStreaming() {
    QElapsedTimer cost;
    cost.start();
    const QList<quint64> dirty = std::exchange(m_dirty, {});
    for (const quint64 id : dirty) {
        const int row = m_model ? m_model->rowOfId(id) : -1;
        if (row >= 0)
            rerender(row);
    }
    // A long reply costs more to render (64 KiB: ~35 ms): render it less often, so streaming
    // never takes more than about a fifth of the time.
    m_streamTimer.setInterval(
        std::clamp(int(cost.elapsed()) * 4, kStreamIntervalMs, kMaxStreamIntervalMs));
}

void ConversationView::onAnchor(const QUrl &url) {
    if (const std::optional<quint64> id = toggledEntry(url)) {
        const int row = m_model ? m_model->rowOfId(*id) : -1;
        if (row >= 0)
            m_model->setExpanded(row, !m_model->entry(row).expanded);
        return;
    }
    // Agents write links; a click may open a web page, never a file, a program or a script.
    const QString scheme = url.scheme().toLower();
    if (scheme == QLatin1String("http") || scheme == QLatin1String("https")) {
        QDesktopServices::openUrl(url);
        return;
    }
    qCInfo(lcUi) << "link not opened (only http and https are):" << url.toDisplayString();
}

void ConversationView::onScrolled(int value) {
    if (m_adjusting)
        return;
    const QScrollBar *bar = verticalScrollBar();
    m_follow = value >= bar->maximum() - 4;
    if (value != bar->minimum() || bar->maximum() <= 0)
        return;
    // Queued: rendering older entries moves this scroll bar, not from inside its own signal.
    QMetaObject::invokeMethod(
        this,
        [this] {
            const QScrollBar *b = verticalScrollBar();
            if (b->value() == b->minimum() && !showOlder())
                Q_EMIT topReached();
        },
        Qt::QueuedConnection);
}

double ConversationView::entryTop(int index) const {
    const int pos = index >= int(m_lengths.size()) ? document()->characterCount() - 1
                                                   : positionOf(index) + 1; // its spacer block
    return document()->documentLayout()->blockBoundingRect(document()->findBlock(pos)).top();
}

void ConversationView::keepInPlace(int before, int after, const std::function<void()> &change) {
    if (m_follow) {
        change();
        scheduleScrollToBottom();
        return;
    }
    QScrollBar *bar = verticalScrollBar();
    const int value = bar->value();
    const double top = entryTop(before);
    change();
    const double moved = entryTop(after) - top;
    document()->documentLayout()->documentSize(); // the whole layout, so the range is current
    m_adjusting = true;
    bar->setValue(value + qRound(moved));
    m_adjusting = false;
}

void ConversationView::scheduleScrollToBottom() {
    // A stream changes the document many times per event-loop pass: scroll once per pass.
    if (m_scrollPending)
        return;
    m_scrollPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_scrollPending = false;
            if (!m_follow)
                return;
            if (m_renders > kCompactAfterRenders) {
                rebuild(); // at the bottom, the user sees the same thing
                return;
            }
            trimWindow();
            scrollToBottomNow();
        },
        Qt::QueuedConnection);
}

void ConversationView::scrollToBottomNow() {
    document()->documentLayout()->documentSize();
    QScrollBar *bar = verticalScrollBar();
    m_adjusting = true;
    bar->setValue(bar->maximum());
    m_adjusting = false;
    m_follow = true;
}

ConversationView::FindResult ConversationView::findText(const QString &text, bool backward) {
    if (text.isEmpty()) {
        clearFind();
        return {};
    }
    const bool fresh = text != m_findText;
    m_findText = text;
    QList<QTextEdit::ExtraSelection> highlights;
    QList<int> starts;
    QTextCharFormat mark;
    mark.setBackground(QColor(0xff, 0xf1, 0x76));
    mark.setForeground(QColor(0x1f, 0x23, 0x28));
    for (QTextCursor c = document()->find(text, 0); !c.isNull(); c = document()->find(text, c)) {
        starts.append(c.selectionStart());
        if (highlights.size() < kMaxHighlights)
            highlights.append({c, mark});
    }
    setExtraSelections(highlights);
    if (starts.isEmpty())
        return {};
    // Typing more of the word keeps the match in place; Enter moves on from it.
    QTextCursor from = textCursor();
    if (fresh && !backward)
        from.setPosition(from.selectionStart());
    const QTextDocument::FindFlags flags =
        backward ? QTextDocument::FindBackward : QTextDocument::FindFlags();
    QTextCursor found = document()->find(text, from, flags);
    if (found.isNull()) { // wrap around
        QTextCursor edge(document());
        edge.movePosition(backward ? QTextCursor::End : QTextCursor::Start);
        found = document()->find(text, edge, flags);
    }
    if (found.isNull())
        return {0, int(starts.size())};
    setTextCursor(found);
    ensureCursorVisible();
    return {int(starts.indexOf(found.selectionStart())) + 1, int(starts.size())};
}

void ConversationView::clearFind() {
    m_findText.clear();
    setExtraSelections({});
}

QVariant ConversationView::loadResource(int type, const QUrl &name) {
    qCInfo(lcUi) << "resource not loaded (replies never load any):" << name.toDisplayString();
    // Not null, so the document does not fall back to reading the file itself.
    if (type == QTextDocument::ImageResource)
        return QImage();
    return QByteArray();
}

void ConversationView::keyPressEvent(QKeyEvent *event) {
    if (event->key() == Qt::Key_End &&
        (event->modifiers() == Qt::NoModifier || event->modifiers() == Qt::ControlModifier)) {
        scrollToBottomNow(); // back to following the tail
        return;
    }
    QTextBrowser::keyPressEvent(event);
}

void ConversationView::resizeEvent(QResizeEvent *event) {
    QTextBrowser::resizeEvent(event);
    if (m_follow)
        scheduleScrollToBottom();
}

} // namespace flotilla::monitor::ui
