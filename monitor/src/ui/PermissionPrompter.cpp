#include "ui/PermissionPrompter.h"

#include "core/InboxModel.h"
#include "core/MonitorSession.h"
#include "ui/PermissionDialog.h"

#include <QWidget>

namespace flotilla::monitor::ui {

PermissionPrompter::PermissionPrompter(InboxModel &inbox, QWidget *window)
    : QObject(window)
    , m_inbox(inbox)
    , m_window(window) {
    connect(&m_inbox, &QAbstractItemModel::rowsRemoved, this, &PermissionPrompter::closeResolved);
    connect(&m_inbox, &QAbstractItemModel::modelReset, this, &PermissionPrompter::closeResolved);
}

bool PermissionPrompter::open(int row) {
    const InboxModel::Item item = m_inbox.item(row);
    if (item.kind != InboxModel::Kind::Permission || row < 0 || row >= m_inbox.rowCount())
        return false;
    for (const Open &o : std::as_const(m_open)) {
        if (o.dialog && o.session == item.session && o.requestId == item.requestId) {
            o.dialog->raise();
            o.dialog->activateWindow();
            return true;
        }
    }
    auto *dialog = new PermissionDialog(item.request, m_window);
    const QPointer<MonitorSession> session(item.session);
    connect(dialog, &PermissionDialog::answered, this,
            [this, session](const QString &requestId, bool granted) {
                const int at = m_inbox.rowOfRequest(session, requestId);
                if (at >= 0)
                    m_inbox.answer(at, granted);
            });
    m_open.append(Open{session, item.requestId, dialog});
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return true;
}

void PermissionPrompter::closeResolved() {
    for (qsizetype i = m_open.size() - 1; i >= 0; --i) {
        const Open &o = m_open.at(i);
        if (!o.dialog) {
            m_open.removeAt(i);
        } else if (m_inbox.rowOfRequest(o.session, o.requestId) < 0) {
            o.dialog->close();
            m_open.removeAt(i);
        }
    }
}

int PermissionPrompter::openCount() const {
    int n = 0;
    for (const Open &o : m_open)
        n += o.dialog && o.dialog->isVisible() ? 1 : 0;
    return n;
}

} // namespace flotilla::monitor::ui
