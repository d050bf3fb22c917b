#include "ui/SkillsTab.h"

#include "core/ShapingCatalog.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/LibraryCommon.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;

SkillsTab::SkillsTab(ShapingCatalog &catalog, QWidget *parent)
    : QWidget(parent)
    , m_catalog(catalog)
    , m_list(new QListView(this))
    , m_slug(new QLineEdit(this))
    , m_name(new QLineEdit(this))
    , m_description(new QLineEdit(this))
    , m_enabled(new QCheckBox(tr("&Enabled (offered to the agents that have it)"), this))
    , m_content(new QPlainTextEdit(this))
    , m_preview(new QTextBrowser(this))
    , m_delete(new QPushButton(tr("&Delete"), this))
    , m_error(makeErrorLabel(this, QStringLiteral("skillsError"))) {
    setObjectName(QStringLiteral("skillsTab"));
    m_list->setObjectName(QStringLiteral("skillsList"));
    m_list->setModel(&catalog.skills());
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_slug->setObjectName(QStringLiteral("skillSlug"));
    m_slug->setMaxLength(40);
    m_name->setObjectName(QStringLiteral("skillName"));
    m_name->setMaxLength(64);
    m_name->setPlaceholderText(tr("default: the slug"));
    m_description->setObjectName(QStringLiteral("skillDescription"));
    m_description->setMaxLength(1024);
    m_description->setPlaceholderText(tr("When the model should use it (always in its context)"));
    m_enabled->setObjectName(QStringLiteral("skillEnabled"));
    m_content->setObjectName(QStringLiteral("skillContent"));
    m_content->setPlaceholderText(tr("The SKILL.md body (markdown, no front matter)"));
    m_preview->setObjectName(QStringLiteral("skillPreview"));
    m_preview->setOpenExternalLinks(false);
    // The preview follows the text as it is typed.
    connect(m_content, &QPlainTextEdit::textChanged, this,
            [this] { m_preview->setMarkdown(m_content->toPlainText()); });
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                // A reload (reconnect) clears the current row: the editor keeps what it shows.
                if (current.isValid())
                    load(current.data(JsonListModel::JsonRole).toJsonObject());
            });

    // Another client changed the skill shown: shown as it is now, unless it is being edited here.
    connect(&catalog.skills(), &QAbstractItemModel::dataChanged, this, [this] {
        const QJsonObject now = m_catalog.skills().itemById(m_slugShown);
        if (m_slugShown.isEmpty() || now.isEmpty() || now == m_shown)
            return;
        QJsonObject shown = m_shown;
        shown.insert(sk::Enabled, shown.value(sk::Enabled).toBool(true));
        const QJsonObject edits = edited();
        for (auto it = edits.begin(); it != edits.end(); ++it) {
            if (shown.value(it.key()) != it.value())
                return;
        }
        const int row = m_catalog.skills().rowOf(m_slugShown);
        const QSignalBlocker block(m_list->selectionModel());
        load(now);
        m_list->setCurrentIndex(m_catalog.skills().index(row));
    });

    auto *create = new QPushButton(tr("&New"), this);
    create->setObjectName(QStringLiteral("newSkillButton"));
    auto *saveButton = new QPushButton(tr("&Save"), this);
    saveButton->setObjectName(QStringLiteral("saveSkillButton"));
    m_delete->setObjectName(QStringLiteral("deleteSkillButton"));
    connect(create, &QPushButton::clicked, this, &SkillsTab::newSkill);
    connect(saveButton, &QPushButton::clicked, this, &SkillsTab::save);
    connect(m_delete, &QPushButton::clicked, this, &SkillsTab::deleteCurrent);

    auto *text = new QSplitter(Qt::Horizontal, this);
    text->addWidget(m_content);
    text->addWidget(m_preview);
    auto *form = new QFormLayout;
    form->addRow(tr("S&lug:"), m_slug);
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(tr("Desc&ription:"), m_description);
    form->addRow(QString(), m_enabled);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(create);
    buttons->addWidget(saveButton);
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    auto *editor = new QWidget(this);
    auto *editorLayout = new QVBoxLayout(editor);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->addLayout(form);
    editorLayout->addWidget(text, 1);
    editorLayout->addWidget(m_error);
    editorLayout->addLayout(buttons);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(editor);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({260, 740}); // the list wide enough for its summaries
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);
    newSkill();
}

void SkillsTab::load(const QJsonObject &skill) {
    m_shown = skill;
    m_slugShown = skill.value(sk::Slug).toString();
    m_slug->setText(m_slugShown);
    m_slug->setReadOnly(!m_slugShown.isEmpty()); // a slug is fixed once created
    m_name->setText(skill.value(k::Name_).toString());
    m_description->setText(skill.value(sk::Description).toString());
    m_enabled->setChecked(skill.value(sk::Enabled).toBool(true));
    m_content->setPlainText(skill.value(sk::Content).toString());
    m_delete->setEnabled(!m_slugShown.isEmpty());
    showError(m_error, {});
}

void SkillsTab::newSkill() {
    m_list->selectionModel()->clearCurrentIndex();
    load({});
    m_slug->setFocus();
}

void SkillsTab::selectSlug(const QString &slug) {
    const int row = m_catalog.skills().rowOf(slug);
    if (row >= 0)
        m_list->setCurrentIndex(m_catalog.skills().index(row));
}

QJsonObject SkillsTab::edited() const {
    QJsonObject o{{sk::Description, m_description->text().trimmed()},
                  {sk::Content, m_content->toPlainText()},
                  {sk::Enabled, m_enabled->isChecked()}};
    const QString name = m_name->text().trimmed();
    if (!name.isEmpty())
        o.insert(k::Name_, name);
    return o;
}

// POST /api/skills -> 201 | PATCH /api/skills/:slug -> 200 (only what changed)
void SkillsTab::save() {
    const QPointer<SkillsTab> self(this);
    auto done = [self](const client::RestReply &r) {
        if (!self)
            return;
        showReply(self->m_error, r);
        if (!r.ok())
            return;
        self->load(r.body.object());
        self->selectSlug(self->m_slugShown);
    };
    QJsonObject body = edited();
    if (m_slugShown.isEmpty()) {
        body.insert(sk::Slug, m_slug->text().trimmed());
        m_catalog.create(ShapingKind::Skills, body, done);
        return;
    }
    for (auto it = body.begin(); it != body.end();) {
        if (m_shown.value(it.key()) == it.value())
            it = body.erase(it);
        else
            ++it;
    }
    m_catalog.update(ShapingKind::Skills, m_slugShown, body, done);
}

// DELETE /api/skills/:slug -> 204 | 409 skill_in_use {agents, classes}
void SkillsTab::deleteCurrent() {
    const QString slug = m_slugShown;
    if (slug.isEmpty())
        return;
    confirmDelete(this, tr("skill %1").arg(slug), [this, slug] {
        const QPointer<SkillsTab> self(this);
        m_catalog.remove(ShapingKind::Skills, slug, [self](const client::RestReply &r) {
            if (!self)
                return;
            showReply(self->m_error, r);
            if (r.ok())
                self->newSkill();
        });
    });
}

} // namespace flotilla::monitor::ui
