#include "ui/ContextBarDelegate.h"

#include "core/AgentsModel.h"

#include <QApplication>
#include <QPainter>

namespace flotilla::monitor::ui {

ContextBarDelegate::ContextBarDelegate(QObject *parent)
    : QStyledItemDelegate(parent) {
}

QString ContextBarDelegate::formatTokens(qint64 n) {
    if (n >= 1000000)
        return QString::number(double(n) / 1e6, 'f', 1) + QLatin1Char('M');
    if (n >= 10000)
        return QString::number(n / 1000) + QLatin1Char('k');
    if (n >= 1000)
        return QString::number(double(n) / 1e3, 'f', 1) + QLatin1Char('k');
    return QString::number(n);
}

void ContextBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                               const QModelIndex &index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    // Background and selection from the style, so the row looks like its neighbours.
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const qint64 used = index.data(AgentsModel::ContextUsedRole).toLongLong();
    const qint64 limit = index.data(AgentsModel::ContextLimitRole).toLongLong();
    double fraction = index.data(AgentsModel::ContextFractionRole).toDouble();
    if (fraction <= 0.0 && limit > 0)
        fraction = double(used) / double(limit);
    fraction = qBound(0.0, fraction, 1.0);

    const QRect bar = option.rect.adjusted(3, 4, -3, -4);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(option.palette.color(QPalette::Mid));
    painter->setBrush(option.palette.color(QPalette::Base));
    painter->drawRect(bar.adjusted(0, 0, -1, -1));
    const QColor fill = fraction > 0.85   ? QColor(0xe5, 0x73, 0x73)
                        : fraction > 0.60 ? QColor(0xff, 0xc1, 0x07)
                                          : QColor(0x81, 0xc7, 0x84);
    QRect filled = bar.adjusted(1, 1, -1, -1);
    filled.setWidth(int(filled.width() * fraction));
    painter->fillRect(filled, fill);
    painter->setPen(option.palette.color(QPalette::Text));
    const QString text = limit > 0
                             ? formatTokens(used) + QStringLiteral(" / ") + formatTokens(limit)
                             : QStringLiteral("-");
    painter->drawText(bar, Qt::AlignCenter, text);
    painter->restore();
}

QSize ContextBarDelegate::sizeHint(const QStyleOptionViewItem &option,
                                   const QModelIndex &index) const {
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(
        qMax(s.width(), option.fontMetrics.horizontalAdvance(QStringLiteral("000k / 000k")) + 12));
    return s;
}

} // namespace flotilla::monitor::ui
