#include "ui/LibraryTab.h"

#include "ui/LibraryCommon.h"

#include <QItemSelectionModel>
#include <QLabel>
#include <QListView>
#include <QPointer>
#include <QSplitter>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

LibraryTab::LibraryTab(ShapingCatalog &catalog, ShapingKind kind, const QString &name,
                       QAbstractItemModel *model, QWidget *parent)
    : QWidget(parent)
    , m_catalog(catalog)
    , m_kind(kind)
    , m_list(new QListView(this))
    , m_error(makeErrorLabel(this, name + QStringLiteral("Error"))) {
    setObjectName(name + QStringLiteral("Tab"));
    if (!model)
        model = &catalog.model(kind);
    else if (!model->parent())
        model->setParent(this);
    m_list->setObjectName(name + QStringLiteral("List"));
    m_list->setModel(model);
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
}

void LibraryTab::selectId(const QString &id) {
    const int row = items().rowOf(id);
    if (row >= 0)
        m_list->setCurrentIndex(m_list->model()->index(row, 0));
}

void LibraryTab::followCurrent(ItemFn show) {
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [show = std::move(show)](const QModelIndex &current) {
                if (current.isValid())
                    show(current.data(JsonListModel::JsonRole).toJsonObject());
            });
}

void LibraryTab::placeBeside(QWidget *pane, int paneStretch, int listWidth) {
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(pane);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, paneStretch);
    split->setSizes({listWidth, 1000 - listWidth});
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);
}

ShapingCatalog::Done LibraryTab::answer(ItemFn ok) {
    const QPointer<LibraryTab> self(this);
    return [self, ok = std::move(ok)](const client::RestReply &r) {
        if (!self)
            return;
        showReply(self->m_error, r);
        if (r.ok() && ok)
            ok(r.body.object());
    };
}

void LibraryTab::saveItem(const QString &id, const QJsonObject &body, ItemFn saved) {
    if (id.isEmpty())
        m_catalog.create(m_kind, body, answer(std::move(saved)));
    else
        m_catalog.update(m_kind, id, body, answer(std::move(saved)));
}

void LibraryTab::deleteItem(const QString &id, const QString &what, std::function<void()> deleted) {
    if (id.isEmpty())
        return;
    confirmDelete(this, what, [this, id, deleted = std::move(deleted)] {
        m_catalog.remove(m_kind, id, answer([deleted](const QJsonObject &) {
                             if (deleted)
                                 deleted();
                         }));
    });
}

} // namespace flotilla::monitor::ui
