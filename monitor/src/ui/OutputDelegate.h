#pragma once
// One output line per row, one line high (the view uses uniform item sizes, so 10,000 rows cost
// no layout pass). Kinds are set apart by prefix, indent and colour: text plain, tool calls in
// blue with a "▶" and a tinted band, tool results indented with "↳", errors red, info grey.

#include <QStyledItemDelegate>

namespace flotilla::monitor::ui {

class OutputDelegate final : public QStyledItemDelegate {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(OutputDelegate)
public:
    explicit OutputDelegate(QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The prefix painted before an entry of `kind` (OutputEntry::Kind); also used when copying.
    static QString prefix(int kind);
};

} // namespace flotilla::monitor::ui
