#pragma once
// The Library's buildings: the processes the service keeps running for the user. The list
// (crashed ones red), the selected building's state, pid, exit code, restarts, uptime and url
// (a link), Start / Stop / Restart, New / Edit / Delete, and its log: the newest 500 lines
// (GET /api/buildings/:id/logs?tail=500), then each building_output as it comes.

#include "ui/LibraryTab.h"

#include <QJsonObject>
#include <QList>

class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class BuildingDialog;

class BuildingsTab final : public LibraryTab {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BuildingsTab)
public:
    explicit BuildingsTab(MonitorSession &session, QWidget *parent = nullptr);

    QPlainTextEdit *log() const { return m_log; }
    QString currentId() const { return m_idShown; }
    void selectBuilding(const QString &id) { selectId(id); }
    void act(const QString &action); // start, stop, restart
    BuildingDialog *openEditor(bool create);
    void deleteCurrent();
    static constexpr int kTailLines = 500;

private:
    void showBuilding(const QString &id);
    void updateDetails();
    void loadLog();
    void appendOutput(const QString &text, bool stderrStream);

    MonitorSession &m_session;
    QString m_idShown;
    quint64 m_logGeneration = 0;
    bool m_logLoading = false;
    // Output that came while the tail was on its way: {text, stderr}.
    QList<QPair<QString, bool>> m_early;
    QLabel *m_state;
    QLabel *m_pid;
    QLabel *m_restarts;
    QLabel *m_url;
    QLabel *m_command;
    QPushButton *m_start;
    QPushButton *m_stop;
    QPushButton *m_restart;
    QPushButton *m_edit;
    QPushButton *m_delete;
    QPlainTextEdit *m_log;
};

} // namespace flotilla::monitor::ui
