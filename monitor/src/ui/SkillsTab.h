#pragma once
// The Library's skills: the list, and an editor for the selected one (slug, name, description,
// enabled, and the SKILL.md body beside its markdown preview). New clears the editor for a new
// skill; Save creates or changes it; Delete shows a refusal (skill_in_use names the agents and
// classes that use it).

#include <QJsonObject>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QListView;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace flotilla::monitor {
class ShapingCatalog;
}

namespace flotilla::monitor::ui {

class SkillsTab final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SkillsTab)
public:
    explicit SkillsTab(ShapingCatalog &catalog, QWidget *parent = nullptr);

    QListView *list() const { return m_list; }
    QTextBrowser *preview() const { return m_preview; }
    void newSkill();
    void save();
    void deleteCurrent();
    void selectSlug(const QString &slug);

private:
    void load(const QJsonObject &skill);
    QJsonObject edited() const;

    ShapingCatalog &m_catalog;
    QString m_slugShown; // the skill in the editor; empty: a new one
    QJsonObject m_shown;
    QListView *m_list;
    QLineEdit *m_slug;
    QLineEdit *m_name;
    QLineEdit *m_description;
    QCheckBox *m_enabled;
    QPlainTextEdit *m_content;
    QTextBrowser *m_preview;
    QPushButton *m_delete;
    QLabel *m_error;
};

} // namespace flotilla::monitor::ui
