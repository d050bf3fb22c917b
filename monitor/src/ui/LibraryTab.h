#pragma once
// The base of the Library window's tabs: the list of one kind of item, the red line that shows
// the service's refusals, and what every tab does with an item: follow the current one, select
// one, save one (POST for a new one, else PATCH) and delete one after asking. A tab named
// "hooks" is the widget "hooksTab", its list "hooksList" and its red line "hooksError".

#include "core/ShapingCatalog.h"

#include <QJsonObject>
#include <QWidget>

#include <functional>

class QAbstractItemModel;
class QLabel;
class QListView;

namespace flotilla::monitor::ui {

class LibraryTab : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LibraryTab)
public:
    QListView *list() const { return m_list; }
    // Makes item `id` the list's current one (nothing when the list does not hold it).
    void selectId(const QString &id);

protected:
    using ItemFn = std::function<void(const QJsonObject &item)>;
    // `model`: what the list shows, row for row the catalog's list of `kind`; null: that list.
    // A model without a parent becomes this tab's.
    LibraryTab(ShapingCatalog &catalog, ShapingKind kind, const QString &name,
               QAbstractItemModel *model, QWidget *parent);

    ShapingCatalog &catalog() const { return m_catalog; }
    ShapingListModel &items() const { return m_catalog.model(m_kind); }
    QLabel *errorLabel() const { return m_error; }

    // Calls `show` with each item made current. A cleared current row (a reload after a
    // reconnect clears it) calls nothing: the tab keeps what it shows.
    void followCurrent(ItemFn show);
    // The list on the left, `pane` beside it taking `paneStretch` times the list's share of
    // the room; the list starts `listWidth` of 1000 pixels wide (enough for its summaries).
    void placeBeside(QWidget *pane, int paneStretch, int listWidth);
    // A call's answer: the refusal shown (the red line hidden on success), then `ok` with the
    // answer's item on success; nothing once the tab is gone.
    ShapingCatalog::Done answer(ItemFn ok = {});
    // POST `body` when `id` is empty (a new item), else PATCH item `id` with it.
    void saveItem(const QString &id, const QJsonObject &body, ItemFn saved);
    // Asks "Delete <what>?", then DELETE item `id`; `deleted` runs when the service did.
    void deleteItem(const QString &id, const QString &what, std::function<void()> deleted = {});

private:
    ShapingCatalog &m_catalog;
    ShapingKind m_kind;
    QListView *m_list;
    QLabel *m_error;
};

} // namespace flotilla::monitor::ui
