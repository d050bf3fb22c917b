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
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;

SkillsTab::SkillsTab(ShapingCatalog &catalog, QWidget *parent)
    : LibraryTab(catalog, ShapingKind::Skills, QStringLiteral("skills"), nullptr, parent)
    , m_slug(new QLineEdit(this))
    , m_name(new QLineEdit(this))
    , m_description(new QLineEdit(this))
    , m_enabled(new QCheckBox(tr("&Enabled (offered to the agents that have it)"), this))
    , m_content(new QPlainTextEdit(this))
    , m_preview(new QTextBrowser(this))
    , m_delete(makeButton(this, tr("&Delete"), QStringLiteral("deleteSkillButton"),
                          [this] { deleteCurrent(); })) {
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
    followCurrent([this](const QJsonObject &skill) { load(skill); });

    // Another client changed the skill shown: shown as it is now, unless it is being edited here.
    connect(&items(), &QAbstractItemModel::dataChanged, this, [this] {
        const QJsonObject now = items().itemById(m_slugShown);
        if (m_slugShown.isEmpty() || now.isEmpty() || now == m_shown)
            return;
        QJsonObject shown = m_shown;
        shown.insert(sk::Enabled, shown.value(sk::Enabled).toBool(true));
        const QJsonObject edits = edited();
        for (auto it = edits.begin(); it != edits.end(); ++it) {
            if (shown.value(it.key()) != it.value())
                return;
        }
        const QSignalBlocker block(list()->selectionModel());
        load(now);
        selectId(m_slugShown);
    });

    auto *text = new QSplitter(Qt::Horizontal, this);
    text->addWidget(m_content);
    text->addWidget(m_preview);
    auto *form = new QFormLayout;
    form->addRow(tr("S&lug:"), m_slug);
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(tr("Desc&ription:"), m_description);
    form->addRow(QString(), m_enabled);
    QHBoxLayout *buttons = buttonRow(
        {makeButton(this, tr("&New"), QStringLiteral("newSkillButton"), [this] { newSkill(); }),
         makeButton(this, tr("&Save"), QStringLiteral("saveSkillButton"), [this] { save(); }),
         m_delete});
    placeBeside(column(this, {form, {text, 1}, errorLabel(), buttons}), 3, 260);
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
    showError(errorLabel(), {});
}

void SkillsTab::newSkill() {
    list()->selectionModel()->clearCurrentIndex();
    load({});
    m_slug->setFocus();
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
    QJsonObject body = edited();
    if (m_slugShown.isEmpty())
        body.insert(sk::Slug, m_slug->text().trimmed());
    else
        body = changedFrom(m_shown, body);
    saveItem(m_slugShown, body, [this](const QJsonObject &skill) {
        load(skill);
        selectSlug(m_slugShown);
    });
}

// DELETE /api/skills/:slug -> 204 | 409 skill_in_use {agents, classes}
void SkillsTab::deleteCurrent() {
    deleteItem(m_slugShown, tr("skill %1").arg(m_slugShown), [this] { newSkill(); });
}

} // namespace flotilla::monitor::ui
