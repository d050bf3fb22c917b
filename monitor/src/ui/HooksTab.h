#pragma once
// The Library's hooks: the list (a hook whose last run failed is red), an editor for the
// selected one (name, event, filter, the command as one shell-like line or one argument per
// line, working directory, timeout, enabled) and its runs (GET /api/hooks/:id/runs, then each
// hook_run as it comes; failed runs red, the selected run's output below).

#include "ui/LibraryTab.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class HooksTab final : public LibraryTab {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HooksTab)
public:
    explicit HooksTab(MonitorSession &session, QWidget *parent = nullptr);

    QTableWidget *runs() const { return m_runs; }
    void newHook();
    void save();
    void deleteCurrent();
    void selectHook(const QString &id) { selectId(id); }

private:
    void load(const QJsonObject &hook);
    QWidget *buildEditor();
    void fillAgents();
    void loadRuns();
    void addRun(const QJsonObject &run, bool newest);
    void showRunOutput();
    std::optional<QStringList> command() const; // empty optional: bad quoting (shown)
    QJsonObject edited() const;

    MonitorSession &m_session;
    QString m_idShown; // empty: a new hook
    quint64 m_runsGeneration = 0;
    QLineEdit *m_name;
    QComboBox *m_event;
    QComboBox *m_agent;
    QComboBox *m_class;
    QComboBox *m_area;
    QPlainTextEdit *m_command;
    QCheckBox *m_perLine;
    QComboBox *m_cwd;
    QSpinBox *m_timeout;
    QCheckBox *m_enabled;
    QPushButton *m_delete;
    QTableWidget *m_runs;
    QPlainTextEdit *m_runOutput;
};

} // namespace flotilla::monitor::ui
