#include "ui/OutputView.h"

#include "core/OutputModel.h"
#include "ui/OutputDelegate.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QScrollBar>

namespace flotilla::monitor::ui {

OutputView::OutputView(QWidget *parent)
    : QListView(parent) {
    setObjectName(QStringLiteral("outputView"));
    setUniformItemSizes(true);
    setItemDelegate(new OutputDelegate(this));
    setSelectionMode(QAbstractItemView::ExtendedSelection);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setTextElideMode(Qt::ElideRight);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    setFont(mono);
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, &OutputView::onScrolled);
}

void OutputView::setOutputModel(OutputModel *model) {
    for (const auto &c : std::as_const(m_connections))
        disconnect(c);
    m_connections.clear();
    m_model = model;
    setModel(model);
    m_follow = true;
    if (!model)
        return;
    m_connections << connect(model, &QAbstractItemModel::rowsAboutToBeInserted, this,
                             &OutputView::onAboutToInsert);
    m_connections << connect(model, &QAbstractItemModel::rowsInserted, this,
                             &OutputView::onInserted);
    // Rows dropped at the top by the bound, or a growing last line: stay at the bottom if there.
    m_connections << connect(model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (m_follow)
            scheduleScrollToBottom();
    });
    m_connections << connect(model, &QAbstractItemModel::modelReset, this, [this] {
        m_follow = true;
        scrollToBottom();
    });
    scrollToBottom();
}

void OutputView::onAboutToInsert(const QModelIndex &, int first, int) {
    // m_follow is not recomputed here: the range may have grown since the last scroll without
    // the user moving, and only a user's scroll should stop the view from following.
    QScrollBar *bar = verticalScrollBar();
    m_prepending = first == 0 && m_model && m_model->rowCount() > 0;
    m_valueBeforePrepend = bar->value();
    m_maxBeforePrepend = bar->maximum();
}

void OutputView::onInserted(const QModelIndex &, int first, int last) {
    if (m_prepending) {
        m_prepending = false;
        // Older history went in above: move by its height so the lines the user reads stay.
        const int rowHeight = sizeHintForRow(0) > 0 ? sizeHintForRow(0) : fontMetrics().height();
        const int added = (last - first + 1) * rowHeight;
        QScrollBar *bar = verticalScrollBar();
        bar->setRange(0, m_maxBeforePrepend + added);
        bar->setValue(m_valueBeforePrepend + added);
        return;
    }
    if (m_follow)
        scheduleScrollToBottom();
}

void OutputView::scheduleScrollToBottom() {
    // scrollToBottom() forces the pending layout of every row; a stream inserts rows many times
    // per event-loop pass, so scroll once per pass instead of once per insertion.
    if (m_scrollPending)
        return;
    m_scrollPending = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
            m_scrollPending = false;
            if (m_follow)
                scrollToBottom();
        },
        Qt::QueuedConnection);
}

void OutputView::onScrolled(int value) {
    QScrollBar *bar = verticalScrollBar();
    m_follow = value >= bar->maximum() - 2;
    if (value == bar->minimum() && bar->maximum() > 0 && !m_prepending)
        Q_EMIT topReached();
}

QString OutputView::selectedText() const {
    QModelIndexList rows =
        selectionModel() ? selectionModel()->selectedIndexes() : QModelIndexList();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex &a, const QModelIndex &b) { return a.row() < b.row(); });
    QStringList lines;
    for (const QModelIndex &i : std::as_const(rows))
        lines << OutputDelegate::prefix(i.data(OutputModel::KindRole).toInt()) +
                     i.data().toString();
    return lines.join(QLatin1Char('\n'));
}

void OutputView::keyPressEvent(QKeyEvent *event) {
    if (event == QKeySequence::Copy) {
        QApplication::clipboard()->setText(selectedText());
        return;
    }
    if (event->key() == Qt::Key_End && event->modifiers() == Qt::NoModifier) {
        m_follow = true;
        scrollToBottom();
        return;
    }
    QListView::keyPressEvent(event);
}

} // namespace flotilla::monitor::ui
