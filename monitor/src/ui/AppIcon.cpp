#include "ui/AppIcon.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

namespace flotilla::monitor::ui {

QIcon appIcon() {
    QIcon icon = QIcon::fromTheme(QStringLiteral("invalid.flotilla.Monitor"));
    if (!icon.isNull())
        return icon;
    // Three sails on a blue disc: recognisable at 16 px without an image file.
    QPixmap pm(64, 64);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0x15, 0x65, 0xc0));
    p.drawEllipse(2, 2, 60, 60);
    p.setBrush(Qt::white);
    for (int i = 0; i < 3; ++i) {
        const qreal x = 14 + i * 13;
        QPainterPath sail;
        sail.moveTo(x, 46);
        sail.lineTo(x + 10, 46);
        sail.lineTo(x + 5, 18 + (i % 2) * 6);
        sail.closeSubpath();
        p.drawPath(sail);
    }
    p.end();
    return QIcon(pm);
}

} // namespace flotilla::monitor::ui
