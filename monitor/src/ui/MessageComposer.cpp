#include "ui/MessageComposer.h"

#include <QHBoxLayout>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QToolButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

MessageComposer::MessageComposer(QWidget *parent)
    : QWidget(parent)
    , m_edit(new QPlainTextEdit(this))
    , m_prompts(new QToolButton(this))
    , m_promptsMenu(new QMenu(m_prompts))
    , m_send(new QPushButton(tr("Send"), this)) {
    m_edit->setObjectName(QStringLiteral("messageEdit"));
    m_send->setObjectName(QStringLiteral("sendButton"));
    m_edit->setPlaceholderText(tr("Message to the agent (Ctrl+L to focus, Ctrl+Enter to send)"));
    m_edit->setTabChangesFocus(true);
    m_edit->setMaximumHeight(m_edit->fontMetrics().height() * 5 + 12);
    m_send->setToolTip(tr("Send (Ctrl+Enter)"));
    m_prompts->setObjectName(QStringLiteral("promptsButton"));
    m_prompts->setText(tr("Prompts"));
    m_prompts->setToolTip(tr("Saved prompts: the one chosen goes into the box, to edit and send"));
    m_prompts->setPopupMode(QToolButton::InstantPopup);
    m_promptsMenu->setObjectName(QStringLiteral("promptsMenu"));
    m_prompts->setMenu(m_promptsMenu);
    setPrompts({});
    auto *buttons = new QVBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_prompts);
    buttons->addWidget(m_send);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addLayout(buttons);
    connect(m_send, &QPushButton::clicked, this, &MessageComposer::trySend);
    // Both Return keys: Enter on the keypad is a different key code.
    for (const auto key : {Qt::Key_Return, Qt::Key_Enter}) {
        auto *sc = new QShortcut(QKeySequence(Qt::CTRL | key), m_edit);
        sc->setContext(Qt::WidgetShortcut);
        connect(sc, &QShortcut::activated, this, &MessageComposer::trySend);
    }
}

QString MessageComposer::text() const {
    return m_edit->toPlainText();
}

void MessageComposer::setText(const QString &text) {
    m_edit->setPlainText(text);
}

void MessageComposer::setPrompts(const QList<QPair<QString, QString>> &prompts) {
    m_promptsMenu->clear();
    for (const auto &[name, text] : prompts) {
        QAction *a = m_promptsMenu->addAction(name);
        a->setToolTip(text.left(500));
        connect(a, &QAction::triggered, this, [this, text = text] {
            // Replaces the box's text: a prompt is a whole message, edited from there.
            setText(text);
            m_edit->moveCursor(QTextCursor::End);
            focusEditor();
        });
    }
    m_promptsMenu->setToolTipsVisible(true);
    m_prompts->setEnabled(!prompts.isEmpty());
}

void MessageComposer::clearAfterSend() {
    m_edit->clear();
}

void MessageComposer::setBusy(bool busy) {
    m_send->setEnabled(!busy);
}

void MessageComposer::focusEditor() {
    m_edit->setFocus(Qt::ShortcutFocusReason);
}

void MessageComposer::trySend() {
    const QString t = text().trimmed();
    if (t.isEmpty() || !m_send->isEnabled())
        return;
    Q_EMIT sendRequested(t);
}

} // namespace flotilla::monitor::ui
