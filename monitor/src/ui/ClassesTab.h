#pragma once
// The Library's classes: every class the service defines (built-in ones marked), with its icon
// or letter badge; New, Edit (or double-click) and Delete. A refused delete (class_in_use with
// the agents that use it, builtin_class) is shown under the list.

#include "ui/LibraryTab.h"

class QPushButton;

namespace flotilla::monitor::ui {

class ClassDialog;

class ClassesTab final : public LibraryTab {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClassesTab)
public:
    explicit ClassesTab(ShapingCatalog &catalog, QWidget *parent = nullptr);

    QString currentSlug() const;
    void selectSlug(const QString &slug) { selectId(slug); }
    ClassDialog *openEditor(bool create); // the dialog, shown (window-modal)
    void deleteCurrent();

private:
    void updateButtons();

    QPushButton *m_edit;
    QPushButton *m_delete;
};

} // namespace flotilla::monitor::ui
