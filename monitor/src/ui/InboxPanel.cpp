#include "ui/InboxPanel.h"

#include "core/InboxModel.h"
#include "ui/RequestPreview.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QListView>
#include <QMenu>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

InboxPanel::InboxPanel(InboxModel &inbox, QWidget *parent)
    : QWidget(parent)
    , m_inbox(inbox)
    , m_list(new QListView(this))
    , m_preview(new QTextBrowser(this))
    , m_grant(new QPushButton(tr("&Grant"), this))
    , m_deny(new QPushButton(tr("&Deny"), this))
    , m_always(new QPushButton(tr("&Always..."), this)) {
    setObjectName(QStringLiteral("inboxPanel"));
    m_list->setObjectName(QStringLiteral("inboxList"));
    m_list->setModel(&m_inbox);
    // Two lines an item, wrapped to the dock's width: never a sideways scrollbar.
    m_list->setUniformItemSizes(false);
    m_list->setWordWrap(true);
    m_list->setTextElideMode(Qt::ElideRight);
    m_list->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->setResizeMode(QListView::Adjust);
    m_list->setSpacing(2);
    m_preview->setObjectName(QStringLiteral("inboxPreview"));
    m_preview->setOpenLinks(false);
    m_preview->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_list->installEventFilter(this);
    m_grant->setObjectName(QStringLiteral("inboxGrant"));
    m_deny->setObjectName(QStringLiteral("inboxDeny"));
    m_always->setObjectName(QStringLiteral("inboxAlways"));
    m_grant->setToolTip(tr("Allow this tool use (G)"));
    m_deny->setToolTip(tr("Deny this tool use (D)"));
    m_always->setToolTip(tr("Allow it and remember: A for this agent, P for this project"));
    auto *always = new QMenu(m_always);
    always->addAction(tr("Allow always for this agent"), this,
                      [this] { answerSelected(true, QStringLiteral("agent")); });
    always->addAction(tr("Allow always in this project"), this,
                      [this] { answerSelected(true, QStringLiteral("project")); });
    always->addAction(tr("Allow always, everywhere"), this,
                      [this] { answerSelected(true, QStringLiteral("global")); });
    always->addSeparator();
    always->addAction(tr("Deny always for this agent"), this,
                      [this] { answerSelected(false, QStringLiteral("agent")); });
    m_always->setMenu(always);
    connect(m_grant, &QPushButton::clicked, this, [this] { answerSelected(true); });
    connect(m_deny, &QPushButton::clicked, this, [this] { answerSelected(false); });

    auto *empty = new QLabel(tr("Nothing needs you."), this);
    empty->setObjectName(QStringLiteral("inboxEmpty"));
    empty->setAlignment(Qt::AlignCenter);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_grant);
    buttons->addWidget(m_deny);
    buttons->addWidget(m_always);
    buttons->addStretch();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_list, 2);
    layout->addWidget(empty);
    layout->addWidget(m_preview, 3);
    layout->addLayout(buttons);

    const auto refresh = [this, empty] {
        const bool none = m_inbox.rowCount() == 0;
        empty->setVisible(none);
        m_list->setVisible(!none);
        m_preview->setVisible(!none);
        if (!none && !m_list->currentIndex().isValid())
            m_list->setCurrentIndex(m_inbox.index(0));
        updateButtons();
        updatePreview();
    };
    connect(&m_inbox, &QAbstractItemModel::rowsInserted, this, refresh);
    connect(&m_inbox, &QAbstractItemModel::rowsRemoved, this, refresh);
    connect(&m_inbox, &QAbstractItemModel::modelReset, this, refresh);
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] {
        updateButtons();
        updatePreview();
    });
    connect(m_list, &QListView::activated, this, [this](const QModelIndex &index) {
        const InboxModel::Item item = m_inbox.item(index.row());
        if (item.kind == InboxModel::Kind::Permission)
            Q_EMIT requestOpened(index.row());
        else
            Q_EMIT agentActivated(item.session, item.agentId);
    });
    refresh();
}

int InboxPanel::currentRow() const {
    const QModelIndex index = m_list->currentIndex();
    return index.isValid() ? index.row() : -1;
}

bool InboxPanel::answerSelected(bool granted, const QString &remember) {
    return m_inbox.answer(currentRow(), granted, remember);
}

void InboxPanel::selectNext(int step) {
    const int n = m_inbox.rowCount();
    if (n == 0)
        return;
    const int row = currentRow() < 0 ? 0 : ((currentRow() + step) % n + n) % n;
    m_list->setCurrentIndex(m_inbox.index(row));
}

void InboxPanel::updateButtons() {
    const bool request =
        m_inbox.item(currentRow()).kind == InboxModel::Kind::Permission && currentRow() >= 0;
    m_grant->setEnabled(request);
    m_deny->setEnabled(request);
    m_always->setEnabled(request);
}

void InboxPanel::updatePreview() {
    const int row = currentRow();
    if (row < 0) {
        m_preview->clear();
        return;
    }
    const InboxModel::Item item = m_inbox.item(row);
    QString html = QStringLiteral("<p style=\"margin: 0 0 6px 0\"><b>%1</b></p>")
                       .arg(item.title.toHtmlEscaped());
    if (item.kind == InboxModel::Kind::Permission) {
        html += requestPreviewHtml(item.request.value(QLatin1String("tool")).toString(),
                                   item.request.value(QLatin1String("toolInput")).toObject());
        html +=
            QStringLiteral("<p style=\"color: gray\">%1</p>")
                .arg(
                    tr("G grant, D deny, A/P always; Enter opens it in a window.").toHtmlEscaped());
    } else {
        html += QStringLiteral("<p>%1</p>").arg(item.detail.toHtmlEscaped());
    }
    m_preview->setHtml(html);
}

bool InboxPanel::eventFilter(QObject *watched, QEvent *event) {
    if (watched == m_list && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->modifiers() & ~(Qt::KeypadModifier | Qt::ShiftModifier))
            return false; // shortcuts of the window
        switch (key->key()) {
        case Qt::Key_G:
            answerSelected(true);
            return true;
        case Qt::Key_D:
            answerSelected(false);
            return true;
        case Qt::Key_A:
            answerSelected(true, QStringLiteral("agent"));
            return true;
        case Qt::Key_P:
            answerSelected(true, QStringLiteral("project"));
            return true;
        case Qt::Key_J:
            selectNext(1);
            return true;
        case Qt::Key_K:
            selectNext(-1);
            return true;
        default:
            break;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace flotilla::monitor::ui
