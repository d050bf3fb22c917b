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
#include <QPointer>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;

namespace {
enum Scope { Everyone, OfClass, OfAgent };
}

PromptsTab::PromptsTab(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_list(new QListView(this))
    , m_name(new QLineEdit(this))
    , m_text(new QPlainTextEdit(this))
    , m_scope(new QComboBox(this))
    , m_target(new QComboBox(this))
    , m_delete(new QPushButton(tr("&Delete"), this))
    , m_error(makeErrorLabel(this, QStringLiteral("promptsError"))) {
    setObjectName(QStringLiteral("promptsTab"));
    ShapingCatalog &catalog = session.shaping();
    m_list->setObjectName(QStringLiteral("promptsList"));
    m_list->setModel(&catalog.prompts());
    m_list->setEditTriggers(QAbstractItemView::NoEditTriggers);
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
    connect(m_list->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    load(current.data(JsonListModel::JsonRole).toJsonObject());
            });
    catalog.ensureLoaded(ShapingKind::Classes);

    auto *create = new QPushButton(tr("&New"), this);
    create->setObjectName(QStringLiteral("newPromptButton"));
    auto *saveButton = new QPushButton(tr("&Save"), this);
    saveButton->setObjectName(QStringLiteral("savePromptButton"));
    m_delete->setObjectName(QStringLiteral("deletePromptButton"));
    connect(create, &QPushButton::clicked, this, &PromptsTab::newPrompt);
    connect(saveButton, &QPushButton::clicked, this, &PromptsTab::save);
    connect(m_delete, &QPushButton::clicked, this, &PromptsTab::deleteCurrent);

    auto *scopeRow = new QHBoxLayout;
    scopeRow->addWidget(m_scope);
    scopeRow->addWidget(m_target, 1);
    auto *form = new QFormLayout;
    form->addRow(tr("Na&me:"), m_name);
    form->addRow(buddyLabel(tr("&Offered to:"), m_scope), scopeRow);
    form->addRow(tr("&Text:"), m_text);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(create);
    buttons->addWidget(saveButton);
    buttons->addWidget(m_delete);
    buttons->addStretch(1);
    auto *editor = new QWidget(this);
    auto *editorLayout = new QVBoxLayout(editor);
    editorLayout->setContentsMargins(0, 0, 0, 0);
    editorLayout->addLayout(form, 1);
    editorLayout->addWidget(m_error);
    editorLayout->addLayout(buttons);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_list);
    split->addWidget(editor);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    split->setSizes({300, 700}); // the list wide enough for its summaries
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split);
    newPrompt();
}

void PromptsTab::fillTargets() {
    const QString keep = m_target->currentData().toString();
    m_target->clear();
    const int scope = m_scope->currentData().toInt();
    m_target->setEnabled(scope != Everyone);
    if (scope == OfClass) {
        ShapingListModel &classes = m_session.shaping().classes();
        for (int row = 0; row < classes.rowCount(); ++row) {
            const QString slug = classes.item(row).value(sk::Slug).toString();
            m_target->addItem(classIcon(m_session.shaping(), slug, 16), slug, slug);
        }
    } else if (scope == OfAgent) {
        const AgentsModel &agents = m_session.agents();
        for (const QString &id : agents.agentIds())
            m_target->addItem(agents.agent(id).value(k::Name_).toString(), id);
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
    m_target->setCurrentIndex(std::max(0, m_target->findData(target)));
    m_delete->setEnabled(!m_idShown.isEmpty());
    showError(m_error, {});
}

void PromptsTab::newPrompt() {
    m_list->selectionModel()->clearCurrentIndex();
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
    const QPointer<PromptsTab> self(this);
    auto done = [self](const client::RestReply &r) {
        if (!self)
            return;
        showReply(self->m_error, r);
        if (!r.ok())
            return;
        const QString id = r.body.object().value(k::Id).toString();
        self->m_idShown = id;
        self->m_delete->setEnabled(true);
        const int row = self->m_session.shaping().prompts().rowOf(id);
        if (row >= 0)
            self->m_list->setCurrentIndex(self->m_session.shaping().prompts().index(row));
    };
    if (m_idShown.isEmpty())
        m_session.shaping().create(ShapingKind::Prompts, body, done);
    else
        m_session.shaping().update(ShapingKind::Prompts, m_idShown, body, done);
}

// DELETE /api/prompts/:id -> 204 | 404
void PromptsTab::deleteCurrent() {
    const QString id = m_idShown;
    if (id.isEmpty())
        return;
    confirmDelete(this, tr("prompt %1").arg(m_name->text()), [this, id] {
        const QPointer<PromptsTab> self(this);
        m_session.shaping().remove(ShapingKind::Prompts, id, [self](const client::RestReply &r) {
            if (!self)
                return;
            showReply(self->m_error, r);
            if (r.ok())
                self->newPrompt();
        });
    });
}

} // namespace flotilla::monitor::ui
