#include "ui/TrayNotifier.h"

#include "core/ToolPresentation.h"
#include "ui/UiLog.h"

#include <QGuiApplication>
#include <QSystemTrayIcon>
#include <QWidget>

namespace flotilla::monitor::ui {

TrayNotifier::TrayNotifier(QWidget *window)
    : QObject(window)
    , m_window(window) {
    if (!QSystemTrayIcon::isSystemTrayAvailable()) {
        qCInfo(lcUi) << "no system tray: notifications are shown in the list only";
        return;
    }
    m_tray = new QSystemTrayIcon(QGuiApplication::windowIcon(), this);
    m_tray->setToolTip(QStringLiteral("Flotilla monitor"));
    connect(m_tray, &QSystemTrayIcon::activated, this, [this] {
        m_window->showNormal();
        m_window->raise();
        m_window->activateWindow();
    });
    connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
        m_window->showNormal();
        m_window->activateWindow();
    });
    m_tray->show();
}

void TrayNotifier::notify(const QJsonObject &n) {
    if (!m_tray || !QSystemTrayIcon::supportsMessages())
        return;
    QString title = n.value(QStringLiteral("title")).toString();
    const QString agent = n.value(QStringLiteral("agentName")).toString();
    if (!agent.isEmpty())
        title = agent + QStringLiteral(": ") + title;
    m_tray->showMessage(title, n.value(QStringLiteral("message")).toString(),
                        QSystemTrayIcon::Information, 8000);
}

void TrayNotifier::notifyPermission(const QJsonObject &r) {
    if (!m_tray || !QSystemTrayIcon::supportsMessages() || m_window->isActiveWindow())
        return;
    // The agent, and one line of what it wants: the command, the path, the pattern.
    const QString tool = r.value(QStringLiteral("tool")).toString();
    const QString what = toolSummary(tool, r.value(QStringLiteral("toolInput")).toObject());
    m_tray->showMessage(
        tr("%1 asks for permission").arg(r.value(QStringLiteral("agentName")).toString()),
        what.isEmpty() ? tr("Tool: %1").arg(tool) : tr("%1: %2").arg(tool, what),
        QSystemTrayIcon::Warning, 15000);
}

void TrayNotifier::notifyText(const QString &title, const QString &message) {
    if (!m_tray || !QSystemTrayIcon::supportsMessages())
        return;
    m_tray->showMessage(title, message, QSystemTrayIcon::Information, 8000);
}

} // namespace flotilla::monitor::ui
