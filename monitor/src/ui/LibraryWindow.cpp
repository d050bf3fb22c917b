#include "ui/LibraryWindow.h"

#include "core/MonitorSession.h"
#include "ui/BuildingsTab.h"
#include "ui/ClassesTab.h"
#include "ui/HooksTab.h"
#include "ui/PromptsTab.h"
#include "ui/SkillsTab.h"

#include <QShortcut>
#include <QTabWidget>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

LibraryWindow::LibraryWindow(MonitorSession &session, QWidget *parent)
    : QWidget(parent, Qt::Window)
    , m_session(session)
    , m_tabs(new QTabWidget(this))
    , m_classes(new ClassesTab(session.shaping(), this))
    , m_skills(new SkillsTab(session.shaping(), this))
    , m_prompts(new PromptsTab(session, this))
    , m_hooks(new HooksTab(session, this))
    , m_buildings(new BuildingsTab(session, this)) {
    setObjectName(QStringLiteral("libraryWindow"));
    setWindowTitle(tr("Flotilla library"));
    m_tabs->setObjectName(QStringLiteral("libraryTabs"));
    m_tabs->addTab(m_classes, tr("&Classes"));
    m_tabs->addTab(m_skills, tr("S&kills"));
    m_tabs->addTab(m_prompts, tr("&Prompts"));
    m_tabs->addTab(m_hooks, tr("&Hooks"));
    m_tabs->addTab(m_buildings, tr("&Buildings"));
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_tabs);
    auto *close = new QShortcut(QKeySequence::Close, this);
    connect(close, &QShortcut::activated, this, &QWidget::close);
    resize(1000, 680);
}

void LibraryWindow::showEvent(QShowEvent *event) {
    ShapingCatalog &catalog = m_session.shaping();
    for (const ShapingKind kind : {ShapingKind::Classes, ShapingKind::Skills, ShapingKind::Prompts,
                                   ShapingKind::Hooks, ShapingKind::Buildings})
        catalog.ensureLoaded(kind);
    QWidget::showEvent(event);
}

} // namespace flotilla::monitor::ui
