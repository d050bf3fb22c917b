#include "ui/SystemPromptDialog.h"

#include "core/MonitorSession.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

SystemPromptDialog::SystemPromptDialog(MonitorSession &session, QWidget *parent)
    : QDialog(parent)
    , m_session(session)
    , m_edit(new QPlainTextEdit(this))
    , m_state(new QLabel(this)) {
    setObjectName(QStringLiteral("systemPromptDialog"));
    setWindowTitle(tr("Global system prompt"));
    m_edit->setObjectName(QStringLiteral("systemPromptEdit"));
    m_edit->setPlainText(m_session.systemPrompt());
    m_edit->setPlaceholderText(tr("Appended to every agent's system prompt. Empty: none."));
    m_state->setText(tr("Loading..."));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SystemPromptDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SystemPromptDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new QLabel(tr("Running agents use the new prompt from their next turn."), this));
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_state);
    layout->addWidget(buttons);
    resize(640, 420);

    const QPointer<SystemPromptDialog> self(this);
    m_session.loadSystemPrompt([self](const client::RestReply &r) {
        if (!self)
            return;
        if (!r.ok()) {
            self->m_state->setText(tr("Could not load the prompt: %1").arg(r.error));
            return;
        }
        self->m_state->clear();
        // Keep what the user typed meanwhile.
        if (!self->m_edit->document()->isModified())
            self->m_edit->setPlainText(r.body.object().value(QStringLiteral("prompt")).toString());
    });
}

void SystemPromptDialog::accept() {
    setEnabled(false);
    m_state->setText(tr("Saving..."));
    const QPointer<SystemPromptDialog> self(this);
    m_session.setSystemPrompt(m_edit->toPlainText(), [self](const client::RestReply &r) {
        if (!self)
            return;
        self->setEnabled(true);
        if (r.ok())
            self->QDialog::accept();
        else
            self->m_state->setText(tr("Not saved: %1").arg(r.error));
    });
}

} // namespace flotilla::monitor::ui
