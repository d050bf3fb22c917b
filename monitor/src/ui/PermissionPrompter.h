#pragma once
// Turns MonitorSession's permission requests into PermissionDialogs, one per request, answers
// through MonitorSession::answerPermission, and closes a dialog when the request was resolved
// elsewhere (another client, the deadline, the agent stopped).

#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>

class QWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class PermissionDialog;

class PermissionPrompter final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(PermissionPrompter)
public:
    PermissionPrompter(MonitorSession &session, QWidget *window);

    void show(const QJsonObject &request);
    int openCount() const;

private:
    MonitorSession &m_session;
    QWidget *m_window;
    QHash<QString, QPointer<PermissionDialog>> m_dialogs;
};

} // namespace flotilla::monitor::ui
