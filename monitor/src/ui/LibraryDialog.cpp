#include "ui/LibraryDialog.h"

#include "ui/LibraryCommon.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

LibraryDialog::LibraryDialog(const QJsonObject &existing, const QString &errorName, QWidget *parent)
    : QDialog(parent)
    , m_existing(existing)
    , m_error(makeErrorLabel(this, errorName)) {
}

void LibraryDialog::layOut(QFormLayout *form, const QString &saveName) {
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Save)->setObjectName(saveName);
    // accept() is virtual: Save runs the dialog's own checks first.
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    addPieces(layout, {form, m_error, buttons});
}

void LibraryDialog::send(ShapingCatalog &catalog, ShapingKind kind, const QString &id,
                         const QJsonObject &body) {
    const QPointer<LibraryDialog> self(this);
    auto done = [self, kind, id](const client::RestReply &r) {
        if (!self)
            return;
        self->setEnabled(true);
        if (!r.ok()) {
            showReply(self->m_error, r);
            return;
        }
        const QString savedId = r.body.object().value(idKeyOf(kind)).toString();
        Q_EMIT self->saved(savedId.isEmpty() ? id : savedId);
        self->QDialog::accept();
    };
    setEnabled(false);
    if (isNew())
        catalog.create(kind, body, done);
    else
        catalog.update(kind, id, body, done);
}

} // namespace flotilla::monitor::ui
