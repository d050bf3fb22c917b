#include "ui/AgentsProxy.h"

#include "core/AgentsModel.h"

#include <QColor>
#include <QHash>
#include <QIcon>
#include <QPainter>
#include <QPen>
#include <QPixmap>

namespace flotilla::monitor::ui {

AgentsProxy::AgentsProxy(QObject *parent)
    : QSortFilterProxyModel(parent) {
    setFilterKeyColumn(-1);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    setSortCaseSensitivity(Qt::CaseInsensitive);
    setSortRole(AgentsModel::SortRole);
    setDynamicSortFilter(true);
}

void AgentsProxy::setHostFilter(const QString &host) {
    if (host == m_host)
        return;
    m_host = host;
    invalidateRowsFilter();
}

bool AgentsProxy::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const {
    if (!m_host.isEmpty() &&
        sourceModel()->index(sourceRow, AgentsModel::Host, sourceParent).data().toString() !=
            m_host)
        return false;
    return QSortFilterProxyModel::filterAcceptsRow(sourceRow, sourceParent);
}

QColor AgentsProxy::statusColour(const QString &status) {
    if (status == QLatin1String("working"))
        return {0x1e, 0x88, 0xe5};
    if (status == QLatin1String("waiting_permission"))
        return {0xfb, 0x8c, 0x00};
    if (status == QLatin1String("error"))
        return {0xe5, 0x39, 0x35};
    if (status == QLatin1String("stopped"))
        return {0x9e, 0x9e, 0x9e};
    return {0x43, 0xa0, 0x47}; // idle
}

QIcon AgentsProxy::sandboxIcon() {
    static const QIcon icon = [] {
        QPixmap pm(12, 12);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        const QColor colour(0x54, 0x6e, 0x7a);
        p.setPen(QPen(colour, 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(3.5, 1, 5, 7), 0, 180 * 16); // the shackle
        p.drawLine(QPointF(3.5, 4.5), QPointF(3.5, 6));
        p.drawLine(QPointF(8.5, 4.5), QPointF(8.5, 6));
        p.setPen(Qt::NoPen);
        p.setBrush(colour);
        p.drawRoundedRect(QRectF(2, 5.5, 8, 6), 1.5, 1.5); // the body
        p.end();
        return QIcon(pm);
    }();
    return icon;
}

QVariant AgentsProxy::data(const QModelIndex &index, int role) const {
    if (role == Qt::DecorationRole && index.column() == AgentsModel::Name) {
        if (QSortFilterProxyModel::data(index, AgentsModel::SandboxedRole).toBool())
            return sandboxIcon();
        return {};
    }
    if (role == Qt::DecorationRole && index.column() == AgentsModel::Status) {
        // Icons are built once per status: data() runs for every painted cell.
        static QHash<QString, QIcon> icons;
        const QString status = QSortFilterProxyModel::data(index, Qt::DisplayRole).toString();
        auto it = icons.find(status);
        if (it == icons.end()) {
            QPixmap pm(12, 12);
            pm.fill(Qt::transparent);
            QPainter p(&pm);
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(Qt::NoPen);
            p.setBrush(statusColour(status));
            p.drawEllipse(1, 1, 10, 10);
            p.end();
            it = icons.insert(status, QIcon(pm));
        }
        return *it;
    }
    return QSortFilterProxyModel::data(index, role);
}

} // namespace flotilla::monitor::ui
