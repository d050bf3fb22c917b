#include "ui/FindBar.h"

#include "ui/ConversationView.h"

#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace flotilla::monitor::ui {

FindBar::FindBar(ConversationView &view, QWidget *parent)
    : QWidget(parent)
    , m_view(view)
    , m_edit(new QLineEdit(this))
    , m_count(new QLabel(this)) {
    setObjectName(QStringLiteral("findBar"));
    m_edit->setObjectName(QStringLiteral("findText"));
    m_edit->setPlaceholderText(tr("Find in the conversation"));
    m_edit->setClearButtonEnabled(true);
    m_edit->installEventFilter(this);
    m_count->setObjectName(QStringLiteral("findCount"));
    m_count->setMinimumWidth(
        m_count->fontMetrics().horizontalAdvance(QStringLiteral("999 of 999")));
    auto button = [this](const QString &text, const QString &tip, const QString &name) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setObjectName(name);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton *previous = button(QStringLiteral("\u2191"), tr("Previous match (Shift+Enter)"),
                                   QStringLiteral("findPrevious"));
    QToolButton *next =
        button(QStringLiteral("\u2193"), tr("Next match (Enter)"), QStringLiteral("findNext"));
    QToolButton *done =
        button(QStringLiteral("\u2715"), tr("Close (Esc)"), QStringLiteral("findClose"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 2, 0, 2);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_count);
    layout->addWidget(previous);
    layout->addWidget(next);
    layout->addWidget(done);
    // Typing searches as it goes, from where the current match starts.
    connect(m_edit, &QLineEdit::textChanged, this, [this] { findNext(); });
    connect(previous, &QToolButton::clicked, this, [this] { findNext(true); });
    connect(next, &QToolButton::clicked, this, [this] { findNext(); });
    connect(done, &QToolButton::clicked, this, &FindBar::dismiss);
    hide();
}

void FindBar::open() {
    show();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
    if (!m_edit->text().isEmpty())
        findNext(); // the document may have changed since
}

void FindBar::dismiss() {
    hide();
    m_view.clearFind();
    m_count->clear();
    m_view.setFocus(Qt::OtherFocusReason);
}

void FindBar::findNext(bool backward) {
    const ConversationView::FindResult r = m_view.findText(m_edit->text(), backward);
    showCount(r.current, r.total);
}

void FindBar::showCount(int current, int total) {
    if (m_edit->text().isEmpty())
        m_count->clear();
    else if (total == 0)
        m_count->setText(tr("No matches"));
    else
        m_count->setText(tr("%1 of %2").arg(current).arg(total));
}

QString FindBar::status() const {
    return m_count->text();
}

bool FindBar::eventFilter(QObject *watched, QEvent *event) {
    if (watched == m_edit && event->type() == QEvent::KeyPress) {
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Escape) {
            dismiss();
            return true;
        }
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            findNext(key->modifiers().testFlag(Qt::ShiftModifier));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace flotilla::monitor::ui
