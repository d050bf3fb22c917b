#include "ui/ClassBadge.h"

#include "core/ShapingCatalog.h"

#include <QPainter>

namespace flotilla::monitor::ui {

namespace {
// A stable colour per class, so one class looks the same everywhere and every time.
QColor badgeColour(const QString &slug) {
    const int hue = int(qHash(slug, 0x5eed) % 360);
    return QColor::fromHsl(hue, 140, 110);
}
} // namespace

QPixmap letterBadge(const QString &slug, int size) {
    QPixmap pix(size, size);
    pix.fill(Qt::transparent);
    QPainter p(&pix);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(badgeColour(slug));
    p.drawEllipse(QRectF(0.5, 0.5, size - 1.0, size - 1.0));
    QFont f = p.font();
    f.setBold(true);
    f.setPixelSize(std::max(6, size * 11 / 20));
    p.setFont(f);
    p.setPen(Qt::white);
    p.drawText(QRect(0, 0, size, size), Qt::AlignCenter,
               slug.isEmpty() ? QStringLiteral("?") : slug.left(1).toUpper());
    return pix;
}

QPixmap classPixmap(const QString &slug, const ClassIcon &icon, int size) {
    if (icon.isPng()) {
        QPixmap pix;
        if (pix.loadFromData(icon.data, "PNG"))
            return pix.scaled(size, size, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    }
    return letterBadge(slug, size);
}

QIcon classIcon(ShapingCatalog &catalog, const QString &slug, int size) {
    return QIcon(classPixmap(slug, catalog.classIcon(slug), size));
}

ClassIconModel::ClassIconModel(ShapingCatalog &catalog, QObject *parent)
    : QIdentityProxyModel(parent)
    , m_catalog(catalog) {
    setSourceModel(&catalog.classes());
    connect(&catalog, &ShapingCatalog::classChanged, this, [this](const QString &slug) {
        const int rows = rowCount();
        if (rows == 0)
            return;
        const int row = slug.isEmpty() ? -1 : m_catalog.classes().rowOf(slug);
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0), index(row, 0), {Qt::DecorationRole});
        else if (slug.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(rows - 1, 0), {Qt::DecorationRole});
    });
}

QVariant ClassIconModel::data(const QModelIndex &index, int role) const {
    if (role != Qt::DecorationRole)
        return QIdentityProxyModel::data(index, role);
    const QString slug = QIdentityProxyModel::data(index, JsonListModel::IdRole).toString();
    return classIcon(m_catalog, slug, 32);
}

} // namespace flotilla::monitor::ui
