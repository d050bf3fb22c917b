#include "ui/MessageComposer.h"

#include <QHBoxLayout>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>

namespace flotilla::monitor::ui {

MessageComposer::MessageComposer(QWidget *parent)
    : QWidget(parent)
    , m_edit(new QPlainTextEdit(this))
    , m_send(new QPushButton(tr("Send"), this)) {
    m_edit->setObjectName(QStringLiteral("messageEdit"));
    m_send->setObjectName(QStringLiteral("sendButton"));
    m_edit->setPlaceholderText(tr("Message to the agent (Ctrl+L to focus, Ctrl+Enter to send)"));
    m_edit->setTabChangesFocus(true);
    m_edit->setMaximumHeight(m_edit->fontMetrics().height() * 5 + 12);
    m_send->setToolTip(tr("Send (Ctrl+Enter)"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_send, 0, Qt::AlignBottom);
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
