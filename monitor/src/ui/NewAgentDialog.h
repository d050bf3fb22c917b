#pragma once
// Every field POST /api/agents takes: name, the host it runs on ("local": this machine; on
// another host the working directory is that machine's, so it is neither browsed nor checked
// here, and a worktree is not offered there), working directory, class (the service's classes with
// their icons, or any other label typed), provider, model, permission mode, a git worktree of its
// own (branch and base optional), idle timeout, budget, skills and custom instructions; and the
// area, which the caller sets right after creating (POST /api/agents/bulk/move-area). The last
// directory is remembered (one per host), since agents of one project usually share it. A class's
// defaults (provider, model...) apply on the service for what the dialog leaves unset, so choosing
// a class with defaults fills those fields in here too, where they can still be changed.

#include <QDialog>
#include <QHash>
#include <QIcon>
#include <QJsonObject>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace flotilla::monitor::ui {

class NewAgentDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(NewAgentDialog)
public:
    explicit NewAgentDialog(QWidget *parent = nullptr);

    QJsonObject fields() const;
    // The areas offered (id, name), "no area" first; areaId(): the chosen one, empty for none.
    void setAreas(const QList<QPair<QString, QString>> &areas);
    QString areaId() const;
    // The hosts offered (name, label such as "box (unreachable)"); "local" is always there and
    // chosen until another is. host(): the chosen one's name.
    void setHosts(const QList<QPair<QString, QString>> &hosts);
    QString host() const;
    // The classes offered (slug, icon, tooltip; `defaults` the class's defaults object),
    // replacing the built-in guesses; the text typed or chosen is kept.
    struct ClassChoice {
        QString slug;
        QString tooltip;
        QIcon icon;
        QJsonObject defaults;
    };
    void setClasses(const QList<ClassChoice> &classes);
    // The skills offered (slug, description), checked ones kept.
    void setSkills(const QList<QPair<QString, QString>> &skills);
    void showError(const QString &error); // the service's refusal, dialog stays open
    void accept() override;

Q_SIGNALS:
    void createRequested(const QJsonObject &fields);

private:
    void applyClassDefaults(int index);
    void hostChosen(); // the cwd of that host, what works there

    QLineEdit *m_name;
    QComboBox *m_host;
    QString m_shownHost;             // whose directory m_cwd holds
    QHash<QString, QString> m_cwdOf; // by host: what was typed before another host was chosen
    QLineEdit *m_cwd;
    QPushButton *m_browse;
    QComboBox *m_class;
    QComboBox *m_provider;
    QComboBox *m_model;
    QComboBox *m_permission;
    QComboBox *m_area;
    QCheckBox *m_worktree;
    QLineEdit *m_branch;
    QLineEdit *m_baseRef;
    QSpinBox *m_idleMinutes;     // -1: the service's --idle-timeout
    QDoubleSpinBox *m_budgetUsd; // 0: no cost cap
    QSpinBox *m_budgetKTokens;   // 0: no token cap (thousands)
    QComboBox *m_budgetPeriod;
    QListWidget *m_skills;
    QPlainTextEdit *m_instructions;
    QLabel *m_error;
};

} // namespace flotilla::monitor::ui
