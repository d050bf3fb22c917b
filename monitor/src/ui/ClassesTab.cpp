#include "ui/ClassesTab.h"

#include "core/ShapingCatalog.h"
#include "protocol/ShapingNames.h"
#include "ui/ClassBadge.h"
#include "ui/ClassDialog.h"
#include "ui/LibraryCommon.h"

#include <QItemSelectionModel>
#include <QLabel>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace sk = ::flotilla::wire::shaping::key;

ClassesTab::ClassesTab(ShapingCatalog &catalog, QWidget *parent)
    : LibraryTab(catalog, ShapingKind::Classes, QStringLiteral("classes"),
                 new ClassIconModel(catalog), parent)
    , m_edit(makeButton(this, tr("&Edit..."), QStringLiteral("editClassButton"),
                        [this] { openEditor(false); }))
    , m_delete(makeButton(this, tr("&Delete"), QStringLiteral("deleteClassButton"),
                          [this] { deleteCurrent(); })) {
    list()->setIconSize(QSize(32, 32));
    list()->setUniformItemSizes(true);
    auto *create = makeButton(this, tr("&New class..."), QStringLiteral("newClassButton"),
                              [this] { openEditor(true); });
    connect(list(), &QListView::doubleClicked, this, [this] { openEditor(false); });
    connect(list()->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ClassesTab::updateButtons);
    connect(list()->model(), &QAbstractItemModel::modelReset, this, &ClassesTab::updateButtons);

    auto *layout = new QVBoxLayout(this);
    addPieces(layout, {{list(), 1}, errorLabel(), buttonRow({create, m_edit, m_delete})});
    updateButtons();
}

QString ClassesTab::currentSlug() const {
    return list()->currentIndex().data(JsonListModel::IdRole).toString();
}

void ClassesTab::updateButtons() {
    const QJsonObject cls = items().itemById(currentSlug());
    m_edit->setEnabled(!cls.isEmpty());
    // Built-in classes are never deleted (the service says builtin_class).
    m_delete->setEnabled(!cls.isEmpty() && !cls.value(sk::Builtin).toBool());
}

ClassDialog *ClassesTab::openEditor(bool create) {
    const QJsonObject existing = create ? QJsonObject() : items().itemById(currentSlug());
    if (!create && existing.isEmpty())
        return nullptr;
    auto *dialog = new ClassDialog(catalog(), existing, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ClassDialog::saved, this, [this](const QString &slug) {
        showError(errorLabel(), {});
        selectSlug(slug);
    });
    dialog->open();
    return dialog;
}

// DELETE /api/classes/:slug -> 204 | 409 class_in_use {agents} | 409 builtin_class
void ClassesTab::deleteCurrent() {
    const QString slug = currentSlug();
    deleteItem(slug, tr("class %1").arg(slug));
}

} // namespace flotilla::monitor::ui
