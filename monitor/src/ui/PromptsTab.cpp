#include "ui/PromptsTab.h"

#include "core/MonitorSession.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/ClassBadge.h"
#include "ui/LibraryCommon.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPlainTextEdit>
#include <QPushButton>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;

namespace {
enum Scope { Everyone, OfClass, OfAgent };
}

PromptsTab::PromptsTab(MonitorSession &session, QWidget *parent)
    : LibraryTab(session.shaping(), ShapingKind::Prompts, QStringLiteral("prompts"), nullptr,
                 parent)
    , m_session(session)
    , m_name(new QLineEdit(this))
    , m_text(new QPlainTextEdit(this))
    , m_scope(new QComboBox(this))
    , m_target(new QComboBox(this))
    , m_delete(makeButton(this, tr("&Delete"), QStringLiteral("deletePromptButton"),
                          [this] { deleteCurrent(); })) {
    m_name->setObjectName(QStringLiteral("promptName"));
    m_name->setMaxLength(100);
    m_text->setObjectName(QStringLiteral("promptText"));
    m_text->setPlaceholderText(tr("The message, as it goes into the message box"));
    m_scope->setObjectName(QStringLiteral("promptScope"));
    m_scope->addItem(tr("Every agent"), Everyone);
    m_scope->addItem(tr("Agents of the class"), OfClass);
    m_scope->addItem(tr("One agent"), OfAgent);
    m_target->setObjectName(QStringLiteral("promptTarget"));
    connect(m_scope, &QComboBox::currentIndexChanged, this, &PromptsTab::fillTargets);
    followCurrent([this](const QJsonObject &prompt) { load(prompt); });
    catalog().ensureLoaded(ShapingKind::Classes);

    auto *scopeRow = new QHBoxLayout;
    scopeRow->addWidget(m_scope);
    scopeRow->addWidget(m_target, 1);
    auto *form = new QFormLayout;
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(buddyLabel(tr("&Offered to:"), m_scope), scopeRow);
    form->addRow(tr("&Text:"), m_text);
    QHBoxLayout *buttons = buttonRow(
        {makeButton(this, tr("&New"), QStringLiteral("newPromptButton"), [this] { newPrompt(); }),
         makeButton(this, tr("&Save"), QStringLiteral("savePromptButton"), [this] { save(); }),
         m_delete});
    placeBeside(column(this, {{form, 1}, errorLabel(), buttons}), 2, 300);
    newPrompt();
}

void PromptsTab::fillTargets() {
    const QString keep = m_target->currentData().toString();
    m_target->clear();
    const int scope = m_scope->currentData().toInt();
    m_target->setEnabled(scope != Everyone);
    if (scope == OfClass) {
        ShapingListModel &classes = catalog().classes();
        for (int row = 0; row < classes.rowCount(); ++row) {
            const QString slug = classes.item(row).value(sk::Slug).toString();
            m_target->addItem(classIcon(catalog(), slug, 16), slug, slug);
        }
    } else if (scope == OfAgent) {
        addAgentItems(m_target, m_session.agents());
    }
    const int at = m_target->findData(keep);
    if (at >= 0)
        m_target->setCurrentIndex(at);
}

void PromptsTab::load(const QJsonObject &prompt) {
    m_idShown = prompt.value(k::Id).toString();
    m_name->setText(prompt.value(k::Name_).toString());
    m_text->setPlainText(prompt.value(sk::Text).toString());
    const QJsonObject scope = prompt.value(sk::Scope).toObject();
    const int kind = scope.contains(k::AgentId) ? OfAgent
                     : scope.contains(k::Class) ? OfClass
                                                : Everyone;
    m_scope->setCurrentIndex(m_scope->findData(kind));
    fillTargets();
    const QString target =
        kind == OfAgent ? scope.value(k::AgentId).toString() : scope.value(k::Class).toString();
    if (kind != Everyone && m_target->findData(target) < 0)
        m_target->addItem(target, target); // an agent or class this list does not know
    selectData(m_target, target);
    m_delete->setEnabled(!m_idShown.isEmpty());
    showError(errorLabel(), {});
}

void PromptsTab::newPrompt() {
    list()->selectionModel()->clearCurrentIndex();
    load({});
}

QJsonObject PromptsTab::scope() const {
    const QString target = m_target->currentData().toString();
    switch (m_scope->currentData().toInt()) {
    case OfClass:
        return {{k::Class, target}};
    case OfAgent:
        return {{k::AgentId, target}};
    default:
        return {};
    }
}

// POST /api/prompts -> 201 | PATCH /api/prompts/:id -> 200
void PromptsTab::save() {
    const QJsonObject body{{k::Name_, m_name->text().trimmed()},
                           {sk::Text, m_text->toPlainText()},
                           {sk::Scope, scope()}};
    saveItem(m_idShown, body, [this](const QJsonObject &prompt) {
        m_idShown = prompt.value(k::Id).toString();
        m_delete->setEnabled(true);
        selectId(m_idShown);
    });
}

// DELETE /api/prompts/:id -> 204 | 404
void PromptsTab::deleteCurrent() {
    deleteItem(m_idShown, tr("prompt %1").arg(m_name->text()), [this] { newPrompt(); });
}

} // namespace flotilla::monitor::ui
