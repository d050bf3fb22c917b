#pragma once
// The Library: what shapes the agents of the window's first service, in one window of its own
// (View > Library, Ctrl+Shift+L) with a tab each for classes, skills, saved prompts, hooks and
// buildings. Each tab's list is loaded when the window is first shown and kept live by the
// service's events.

#include <QWidget>

class QTabWidget;

namespace flotilla::monitor {
class MonitorSession;
}

namespace flotilla::monitor::ui {

class BuildingsTab;
class ClassesTab;
class HooksTab;
class PromptsTab;
class SkillsTab;

class LibraryWindow final : public QWidget {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(LibraryWindow)
public:
    explicit LibraryWindow(MonitorSession &session, QWidget *parent = nullptr);

    QTabWidget *tabs() const { return m_tabs; }
    ClassesTab *classesTab() const { return m_classes; }
    SkillsTab *skillsTab() const { return m_skills; }
    PromptsTab *promptsTab() const { return m_prompts; }
    HooksTab *hooksTab() const { return m_hooks; }
    BuildingsTab *buildingsTab() const { return m_buildings; }

protected:
    void showEvent(QShowEvent *event) override;

private:
    MonitorSession &m_session;
    QTabWidget *m_tabs;
    ClassesTab *m_classes;
    SkillsTab *m_skills;
    PromptsTab *m_prompts;
    HooksTab *m_hooks;
    BuildingsTab *m_buildings;
};

} // namespace flotilla::monitor::ui
