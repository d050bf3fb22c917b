#include "ui/PermissionPrompter.h"

#include "core/MonitorSession.h"
#include "ui/PermissionDialog.h"

#include <QWidget>

namespace flotilla::monitor::ui {

PermissionPrompter::PermissionPrompter(MonitorSession &session, QWidget *window)
    : QObject(window)
    , m_session(session)
    , m_window(window) {
    connect(&m_session, &MonitorSession::permissionRequested, this, &PermissionPrompter::show);
    connect(&m_session, &MonitorSession::permissionResolved, this, [this](const QString &id) {
        if (const QPointer<PermissionDialog> d = m_dialogs.take(id))
            d->close();
    });
}

void PermissionPrompter::show(const QJsonObject &request) {
    const QString id = request.value(QStringLiteral("id")).toString();
    if (id.isEmpty())
        return;
    // The service replays pending requests on every reconnect: one dialog per request.
    if (const QPointer<PermissionDialog> open = m_dialogs.value(id)) {
        open->raise();
        return;
    }
    auto *dialog = new PermissionDialog(request, m_window);
    connect(dialog, &PermissionDialog::answered, this, [this](const QString &rid, bool granted) {
        m_dialogs.remove(rid);
        m_session.answerPermission(rid, granted);
    });
    m_dialogs.insert(id, dialog);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
}

int PermissionPrompter::openCount() const {
    int n = 0;
    for (const auto &d : m_dialogs)
        n += d ? 1 : 0;
    return n;
}

} // namespace flotilla::monitor::ui
