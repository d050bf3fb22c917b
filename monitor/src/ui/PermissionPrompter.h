#pragma once
// The dialog of a permission request, when the user asks for it (Enter or a double-click on the
// request in the inbox): never on its own, so connecting while requests wait, or a request
// arriving, opens no window over the main one. The inbox stays the one place where
// requests are listed and answered; a dialog answers through it (so through the request's own
// service), and closes when its request leaves the inbox (answered elsewhere, timed out, the
// agent stopped).

#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QWidget;

namespace flotilla::monitor {
class InboxModel;
class MonitorSession;
} // namespace flotilla::monitor

namespace flotilla::monitor::ui {

class PermissionDialog;

class PermissionPrompter final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionPrompter)
public:
    PermissionPrompter(InboxModel &inbox, QWidget *window);

    // Opens (or raises) the dialog of the permission request at the inbox's `row`. False when
    // that row is no permission request.
    bool open(int row);
    int openCount() const;

private:
    struct Open {
        QPointer<MonitorSession> session;
        QString requestId;
        QPointer<PermissionDialog> dialog;
    };
    void closeResolved();

    InboxModel &m_inbox;
    QWidget *m_window;
    QList<Open> m_open;
};

} // namespace flotilla::monitor::ui
