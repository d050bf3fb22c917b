#pragma once
// The base of the Library's create-or-edit dialogs: the item edited (none: a new one), a form
// above the red line that shows the service's refusal, Save and Cancel. Save sends the item
// and the dialog stays open, disabled, until the service answers: a refusal is shown, an
// acceptance emits saved and closes the dialog.

#include "core/ShapingCatalog.h"

#include <QDialog>
#include <QJsonObject>

class QFormLayout;
class QLabel;

namespace flotilla::monitor::ui {

class LibraryDialog : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LibraryDialog)
public:
    bool isNew() const { return m_existing.isEmpty(); }

Q_SIGNALS:
    void saved(const QString &id);

protected:
    // `existing` empty: a new item. `errorName`: the red line's object name.
    LibraryDialog(const QJsonObject &existing, const QString &errorName, QWidget *parent);

    const QJsonObject &existing() const { return m_existing; }
    QLabel *errorLabel() const { return m_error; }
    // `form`, the red line and Save (named `saveName`) / Cancel, top to bottom.
    void layOut(QFormLayout *form, const QString &saveName);
    // POST `body` to the catalog's list of `kind` for a new item, else PATCH item `id` with it.
    void send(ShapingCatalog &catalog, ShapingKind kind, const QString &id,
              const QJsonObject &body);

private:
    QJsonObject m_existing;
    QLabel *m_error;
};

} // namespace flotilla::monitor::ui
