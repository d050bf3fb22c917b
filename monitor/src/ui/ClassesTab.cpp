#include "ui/ClassesTab.h"

#include "core/ShapingCatalog.h"
#include "protocol/ShapingNames.h"
#include "ui/ClassBadge.h"
#include "ui/ClassDialog.h"
#include "ui/LibraryCommon.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QListView>
#include <QPointer>
#include <QPushButton>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace sk = ::flotilla::wire::shaping::key;

ClassesTab::ClassesTab(ShapingCatalog &catalog, QWidget *parent)
    : QWidget(parent)
    , m_catalog(catalog)
    , m_list(new QListView(this))
    , m_edit(new QPushButton(tr("&Edit..."), this))
    , m_delete(new QPushButton(tr("&Delete"), this))
    , m_error(makeErrorLabel(this, QStringLiteral("classesError"))) {
    setObjectName(QStringLiteral("classesTab"));
    m_list->setObjectName(QStringLiteral("classesList"));
    m_list->setModel(new ClassIconModel(catalog, this));
    m_list->setIconSize(QSize(32, 32));
    m_list->setUniformItemSizes(true);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    auto *create = new QPushButton(tr("&New class..."), this);
    create->setObjectName(QStringLiteral("newClassButton"));
    m_edit->setObjectName(QStringLiteral("editClassButton"));
    m_delete->setObjectName(QStringLiteral("deleteClassButton"));
    connect(create, &QPushButton::clicked, this, [this] { openEditor(true); });
    connect(m_edit, &QPushButton::clicked, this, [this] { openEditor(false); });
    connect(m_delete, &QPushButton::clicked, this, &ClassesTab::deleteCurrent);
    connect(m_list, &QListView::doubleClicked, this, [this] { openEditor(false); });
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &ClassesTab::updateButtons);
    connect(m_list->model(), &QAbstractItemModel::modelReset, this, &ClassesTab::updateButtons);

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(create);
    buttons->addWidget(m_edit);
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_error);
    layout->addLayout(buttons);
    updateButtons();
}

QString ClassesTab::currentSlug() const {
    return m_list->currentIndex().data(JsonListModel::IdRole).toString();
}

void ClassesTab::selectSlug(const QString &slug) {
    const int row = m_catalog.classes().rowOf(slug);
    if (row >= 0)
        m_list->setCurrentIndex(m_list->model()->index(row, 0));
}

void ClassesTab::updateButtons() {
    const QJsonObject cls = m_catalog.classes().itemById(currentSlug());
    m_edit->setEnabled(!cls.isEmpty());
    // Built-in classes are never deleted (the service says builtin_class).
    m_delete->setEnabled(!cls.isEmpty() && !cls.value(sk::Builtin).toBool());
}

ClassDialog *ClassesTab::openEditor(bool create) {
    const QJsonObject existing =
        create ? QJsonObject() : m_catalog.classes().itemById(currentSlug());
    if (!create && existing.isEmpty())
        return nullptr;
    auto *dialog = new ClassDialog(m_catalog, existing, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &ClassDialog::saved, this, [this](const QString &slug) {
        showError(m_error, {});
        selectSlug(slug);
    });
    dialog->open();
    return dialog;
}

// DELETE /api/classes/:slug -> 204 | 409 class_in_use {agents} | 409 builtin_class
void ClassesTab::deleteCurrent() {
    const QString slug = currentSlug();
    if (slug.isEmpty())
        return;
    confirmDelete(this, tr("class %1").arg(slug), [this, slug] {
        const QPointer<ClassesTab> self(this);
        m_catalog.remove(ShapingKind::Classes, slug, [self](const client::RestReply &r) {
            if (self)
                showReply(self->m_error, r);
        });
    });
}

} // namespace flotilla::monitor::ui
