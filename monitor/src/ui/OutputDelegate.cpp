#include "ui/OutputDelegate.h"

#include "core/OutputModel.h"

#include <QApplication>
#include <QPainter>

namespace flotilla::monitor::ui {

namespace {
constexpr int kIndent = 18;
constexpr int kPad = 4;
} // namespace

OutputDelegate::OutputDelegate(QObject *parent)
    : QStyledItemDelegate(parent) {
}

QString OutputDelegate::prefix(int kind) {
    switch (kind) {
    case OutputEntry::ToolCall:
        // The entry's text already starts with the tool name ("Bash  {...}").
        return QStringLiteral("\u25B6 ");
    case OutputEntry::ToolResult:
        return QStringLiteral("\u21B3 ");
    case OutputEntry::Error:
        return QStringLiteral("\u2716 ");
    case OutputEntry::Info:
        return QStringLiteral("\u2139 ");
    default:
        return {};
    }
}

void OutputDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                           const QModelIndex &index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const int kind = index.data(OutputModel::KindRole).toInt();
    QString text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();

    painter->save();
    const bool selected = opt.state & QStyle::State_Selected;
    if (!selected && kind == OutputEntry::ToolCall)
        painter->fillRect(opt.rect, QColor(0xe3, 0xf2, 0xfd));
    else if (!selected && kind == OutputEntry::Error)
        painter->fillRect(opt.rect, QColor(0xff, 0xeb, 0xee));
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    QColor colour = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    int indent = kPad;
    QFont font = opt.font;
    switch (kind) {
    case OutputEntry::ToolCall:
        if (!selected)
            colour = QColor(0x15, 0x65, 0xc0);
        font.setBold(true);
        break;
    case OutputEntry::ToolResult:
        if (!selected)
            colour = QColor(0x2e, 0x7d, 0x32);
        indent += kIndent;
        break;
    case OutputEntry::Error:
        if (!selected)
            colour = QColor(0xc6, 0x28, 0x28);
        break;
    case OutputEntry::Info:
        if (!selected)
            colour = QColor(0x75, 0x75, 0x75);
        font.setItalic(true);
        break;
    default:
        break;
    }
    // Tabs and stray control characters would draw as boxes in a single-line row.
    text.replace(QLatin1Char('\t'), QStringLiteral("    "));
    const QString line = prefix(kind) + text;
    painter->setFont(font);
    painter->setPen(colour);
    const QRect r = opt.rect.adjusted(indent, 0, -kPad, 0);
    const QString elided = QFontMetrics(font).elidedText(line, Qt::ElideRight, r.width());
    painter->drawText(r, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextSingleLine, elided);
    painter->restore();
}

QSize OutputDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &) const {
    // Never measures the text: the width comes from the view, the height from the font.
    return {option.rect.width() > 0 ? option.rect.width() : 400, option.fontMetrics.height() + 4};
}

} // namespace flotilla::monitor::ui
