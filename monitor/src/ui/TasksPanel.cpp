#include "ui/TasksPanel.h"

#include "core/MonitorSession.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

TasksPanel::TasksPanel(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_list(new QListView(this))
    , m_output(new QPlainTextEdit(this))
    , m_kill(new QPushButton(tr("&Kill"), this)) {
    m_list->setObjectName(QStringLiteral("tasksList"));
    m_output->setObjectName(QStringLiteral("taskOutput"));
    m_kill->setObjectName(QStringLiteral("killTask"));
    m_list->setModel(&m_session.tasks());
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_output->setReadOnly(true);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    // Bounded like the model's own 64 KiB tail, so a chatty task cannot grow the widget.
    m_output->setMaximumBlockCount(5000);
    m_kill->setToolTip(tr("Kill the selected task (SIGTERM, then SIGKILL after 2 s)"));
    m_kill->setEnabled(false);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(m_output);
    split->setStretchFactor(1, 2);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_kill);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split, 1);
    layout->addLayout(buttons);

    connect(m_kill, &QPushButton::clicked, this, &TasksPanel::killCurrent);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &TasksPanel::showCurrent);
    TasksModel &tasks = m_session.tasks();
    connect(&tasks, &QAbstractItemModel::dataChanged, this, &TasksPanel::showCurrent);
    connect(&tasks, &QAbstractItemModel::rowsRemoved, this, &TasksPanel::showCurrent);
    connect(&tasks, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_list->currentIndex().isValid() && m_session.tasks().rowCount() > 0)
            m_list->setCurrentIndex(m_session.tasks().index(0));
    });
}

QString TasksPanel::currentTaskId() const {
    const QModelIndex i = m_list->currentIndex();
    return i.isValid() ? i.data(JsonListModel::IdRole).toString() : QString();
}

void TasksPanel::killCurrent() {
    const QString id = currentTaskId();
    if (!id.isEmpty())
        m_session.killTask(id);
}

void TasksPanel::showCurrent() {
    const QString id = currentTaskId();
    const QJsonObject task = m_session.tasks().itemById(id);
    const QString output = task.value(QStringLiteral("output")).toString();
    const bool done = task.value(QStringLiteral("done")).toBool();
    m_kill->setEnabled(!id.isEmpty() && !done);
    QScrollBar *bar = m_output->verticalScrollBar();
    const bool atBottom = bar->value() >= bar->maximum() - 2;
    // Output only grows while the task runs: append the new tail instead of resetting the text,
    // unless the model's 64 KiB window moved on.
    const bool grown = id == m_shownTask && m_shownLength > 0 && output.size() >= m_shownLength &&
                       QStringView(output).left(m_shownLength).endsWith(m_shownTail);
    if (grown) {
        if (output.size() > m_shownLength) {
            m_output->moveCursor(QTextCursor::End);
            m_output->insertPlainText(output.mid(m_shownLength));
        }
    } else {
        m_output->setPlainText(output);
    }
    m_shownTask = id;
    m_shownLength = int(output.size());
    m_shownTail = output.right(256);
    if (atBottom)
        bar->setValue(bar->maximum());
}

} // namespace flotilla::monitor::ui
