#pragma once
// Paints the Context column as a bar of contextUsed / contextLimit with "used / limit" over it;
// the colour turns amber past 60 % and red past 85 %, where an agent will soon compact.

#include <QStyledItemDelegate>

namespace flotilla::monitor::ui {

class ContextBarDelegate final : public QStyledItemDelegate {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ContextBarDelegate)
public:
    explicit ContextBarDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    static QString formatTokens(qint64 n); // 1234 -> "1.2k", 200000 -> "200k"
};

} // namespace flotilla::monitor::ui
