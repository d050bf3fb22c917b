// Placeholder for the desktop monitor (issue 5): proves the Widgets target builds against
// flotilla_protocol alone.

#include "protocol/WireNames.h"

#include <QApplication>
#include <QLabel>

int main(int argc, char *argv[]) {
    QApplication app(argc, argv);
    QLabel label(
        QStringLiteral("flotilla-monitor is not built yet; it will listen for '%1' events.")
            .arg(flotilla::wire::msg::AgentsUpdate));
    label.show();
    return app.exec();
}
