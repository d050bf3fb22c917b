#pragma once
// The Library's skills: the list, and an editor for the selected one (slug, name, description,
// enabled, and the SKILL.md body beside its markdown preview). New clears the editor for a new
// skill; Save creates or changes it; Delete shows a refusal (skill_in_use names the agents and
// classes that use it).

#include "ui/LibraryTab.h"

#include <QJsonObject>

class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTextBrowser;

namespace flotilla::monitor::ui {

class SkillsTab final : public LibraryTab {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SkillsTab)
public:
    explicit SkillsTab(ShapingCatalog &catalog, QWidget *parent = nullptr);

    QTextBrowser *preview() const { return m_preview; }
    void newSkill();
    void save();
    void deleteCurrent();
    void selectSlug(const QString &slug) { selectId(slug); }

private:
    void load(const QJsonObject &skill);
    QJsonObject edited() const;

    QString m_slugShown; // the skill in the editor; empty: a new one
    QJsonObject m_shown;
    QLineEdit *m_slug;
    QLineEdit *m_name;
    QLineEdit *m_description;
    QCheckBox *m_enabled;
    QPlainTextEdit *m_content;
    QTextBrowser *m_preview;
    QPushButton *m_delete;
};

} // namespace flotilla::monitor::ui
