#pragma once
// Desktop notifications through QSystemTrayIcon: agent notifications and permission requests
// pop up while the window is in the background. Does nothing where the desktop has no tray
// (checked with QSystemTrayIcon::isSystemTrayAvailable(); the notifications list still works).

#include <QJsonObject>
#include <QObject>

class QSystemTrayIcon;
class QWidget;

namespace flotilla::monitor::ui {

class TrayNotifier final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(TrayNotifier)
public:
    explicit TrayNotifier(QWidget *window);

    bool isActive() const { return m_tray != nullptr; }
    void notify(const QJsonObject &notification);
    void notifyPermission(const QJsonObject &request);
    // Any other line for the user (an inbox item: an agent failed or finished).
    void notifyText(const QString &title, const QString &message);

private:
    QWidget *m_window;
    QSystemTrayIcon *m_tray = nullptr;
};

} // namespace flotilla::monitor::ui
