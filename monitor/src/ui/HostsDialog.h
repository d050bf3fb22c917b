#pragma once
// The machines the first service runs agents on (View > Hosts, Ctrl+Shift+H): a table of the
// hosts with their ssh destination, connection state (its error beside it), agents, and what
// the last Check found (latency, the claude, codex and git versions there); Add (name, ssh
// destination, optional CLI paths there) and Remove (refused while agents use the host: the
// refusal names them). The table follows the service's host_* events while it is open.

#include <QDialog>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class HostsDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HostsDialog)
public:
    explicit HostsDialog(MonitorSession &session, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QString currentHost() const; // empty: none selected
    void selectHost(const QString &name);

    void checkCurrent();
    void removeCurrent();
    void addHost();

private:
    void updateButtons();
    void showOutcome(const QString &text, bool failed); // the check's line, or a refusal

    MonitorSession &m_session;
    QTableView *m_table;
    QPushButton *m_check;
    QPushButton *m_remove;
    QLineEdit *m_name;
    QLineEdit *m_ssh;
    QLineEdit *m_claudeBin;
    QLineEdit *m_codexBin;
    QPushButton *m_add;
    QLabel *m_outcome;
};

} // namespace flotilla::monitor::ui
