#pragma once
// How a class looks beside an agent or in a list: its PNG icon, or a letter badge (a coloured
// disc with the class's first letter) for a class without one, a plain class label, or an SVG
// icon (the monitor does not link Qt Svg, so SVG icons are served to the browser only).
// ClassIconModel puts that picture on every row of the classes list (DecorationRole).

#include "core/ClassIcons.h"

#include <QIcon>
#include <QIdentityProxyModel>
#include <QPixmap>

namespace flotilla::monitor {
class ShapingCatalog;
}

namespace flotilla::monitor::ui {

// `icon` as a square pixmap of `size` pixels (device-independent), or the letter badge of
// `slug` when it holds no PNG.
QPixmap classPixmap(const QString &slug, const ClassIcon &icon, int size);
QPixmap letterBadge(const QString &slug, int size);
// The icon a widget shows for class `slug` of `catalog` (asks for it; classChanged follows).
QIcon classIcon(ShapingCatalog &catalog, const QString &slug, int size = 32);

class ClassIconModel final : public QIdentityProxyModel {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClassIconModel)
public:
    explicit ClassIconModel(ShapingCatalog &catalog, QObject *parent = nullptr);
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;

private:
    ShapingCatalog &m_catalog;
};

} // namespace flotilla::monitor::ui
