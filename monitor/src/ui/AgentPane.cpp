#include "ui/AgentPane.h"

#include "core/MonitorSession.h"
#include "core/SandboxText.h"
#include "core/UsageText.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/ChangesPanel.h"
#include "ui/ClassBadge.h"
#include "ui/ConversationView.h"
#include "ui/FindBar.h"
#include "ui/HistorySearchPanel.h"
#include "ui/MessageComposer.h"
#include "ui/UiLog.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QPointer>
#include <QTabWidget>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;

namespace {
constexpr int kClassIconSize = 28;
}

AgentPane::AgentPane(MonitorSession &session, QWidget *parent)
    : QWidget(parent)
    , m_session(session)
    , m_classIcon(new QLabel(this))
    , m_title(new QLabel(this))
    , m_skills(new QLabel(this))
    , m_detail(new QLabel(this))
    , m_usage(new QLabel(this))
    , m_historyState(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_conversationPage(new QWidget(this))
    , m_conversation(new ConversationView(m_conversationPage))
    , m_find(new FindBar(*m_conversation, m_conversationPage))
    , m_search(new HistorySearchPanel(session, this))
    , m_changes(new ChangesPanel(session, this))
    , m_composer(new MessageComposer(this)) {
    setObjectName(QStringLiteral("agentPane"));
    m_title->setObjectName(QStringLiteral("agentTitle"));
    QFont f = m_title->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.2);
    m_title->setFont(f);
    m_classIcon->setObjectName(QStringLiteral("agentClassIcon"));
    m_classIcon->setFixedSize(kClassIconSize, kClassIconSize);
    m_skills->setObjectName(QStringLiteral("agentSkills"));
    m_skills->setStyleSheet(QStringLiteral("color: #555;"));
    m_skills->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_detail->setWordWrap(false);
    m_usage->setObjectName(QStringLiteral("agentUsage"));
    m_usage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_usage->setStyleSheet(QStringLiteral("color: #555;"));
    m_historyState->setObjectName(QStringLiteral("historyState"));
    m_historyState->setStyleSheet(QStringLiteral("color: #757575;"));

    auto *page = new QVBoxLayout(m_conversationPage);
    page->setContentsMargins(0, 0, 0, 0);
    page->setSpacing(0);
    page->addWidget(m_conversation, 1);
    page->addWidget(m_find);
    m_tabs->addTab(m_conversationPage, tr("C&onversation"));
    m_tabs->addTab(m_search, tr("Searc&h"));
    m_tabs->addTab(m_changes, tr("Chan&ges"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 0, 0);
    auto *titleRow = new QHBoxLayout;
    titleRow->setSpacing(6);
    titleRow->addWidget(m_classIcon);
    titleRow->addWidget(m_title);
    titleRow->addWidget(m_skills, 1);
    layout->addLayout(titleRow);
    layout->addWidget(m_detail);
    layout->addWidget(m_usage);
    layout->addWidget(m_historyState);
    layout->addWidget(m_tabs, 1);
    layout->addWidget(m_composer);

    connect(m_conversation, &ConversationView::topReached, this, &AgentPane::fetchOlderHistory);
    connect(m_composer, &MessageComposer::sendRequested, this, &AgentPane::send);
    AgentsModel &agents = m_session.agents();
    connect(&agents, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &tl, const QModelIndex &br) {
                const int row = m_session.agents().rowOf(m_agentId);
                if (row >= tl.row() && row <= br.row())
                    updateHeader();
            });
    ShapingCatalog &shaping = m_session.shaping();
    connect(&shaping, &ShapingCatalog::classChanged, this, [this](const QString &slug) {
        if (slug.isEmpty() ||
            slug == m_session.agents().agent(m_agentId).value(k::Class).toString())
            updateClassIcon();
    });
    connect(&shaping, &ShapingCatalog::promptsChanged, this, &AgentPane::loadPrompts);
    connect(&agents, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_agentId.isEmpty() && m_session.agents().rowOf(m_agentId) < 0)
            setAgent({});
    });
    setAgent({});
}

void AgentPane::setAgent(const QString &agentId) {
    if (agentId == m_agentId && !agentId.isEmpty())
        return;
    m_agentId = agentId;
    m_loading = false;
    m_search->setAgent(agentId);
    m_changes->setAgent(agentId);
    m_composer->setEnabled(!agentId.isEmpty());
    m_historyState->clear();
    if (m_find->isVisible())
        m_find->dismiss();
    // Before the transcript: its tool rows render with the hint for refused writes, or not.
    m_conversation->setSandboxed(
        isSandboxed(m_session.agents().agent(agentId), m_session.agents().sandboxDefault()));
    if (agentId.isEmpty()) {
        m_conversation->setTranscript(nullptr);
        updateHeader();
        loadPrompts();
        return;
    }
    m_conversation->setTranscript(&m_session.conversation(agentId));
    updateHeader();
    loadPrompts();
    // First time shown: the latest page of history at once, before whatever streamed since the
    // monitor connected (the session skips what is on screen already).
    if (!m_hasMore.contains(agentId))
        fetchOlderHistory();
}

void AgentPane::updateHeader() {
    if (m_agentId.isEmpty()) {
        m_title->setText(tr("No agent selected"));
        m_detail->setText(tr("Select an agent in the table, or create one with Ctrl+N."));
        m_usage->clear();
        m_usage->setToolTip({});
        m_skills->clear();
        updateClassIcon();
        return;
    }
    const QJsonObject a = m_session.agents().agent(m_agentId);
    m_title->setText(a.value(QStringLiteral("name")).toString());
    QStringList skills;
    for (const QJsonValue &v : a.value(sk::Skills).toArray())
        skills << v.toString();
    m_skills->setText(skills.isEmpty() ? QString()
                                       : tr("skills: %1").arg(skills.join(QStringLiteral(", "))));
    updateClassIcon();
    QStringList parts;
    parts << a.value(QStringLiteral("status")).toString();
    parts << a.value(QStringLiteral("class")).toString();
    parts << a.value(QStringLiteral("model")).toString();
    const QString task = a.value(QStringLiteral("currentTask")).toString();
    if (!task.isEmpty())
        parts << tr("task: %1").arg(task.section(QLatin1Char('\n'), 0, 0).left(120));
    parts << a.value(QStringLiteral("cwd")).toString();
    const QString err = a.value(QStringLiteral("lastError")).toString();
    if (!err.isEmpty())
        parts << tr("last error: %1").arg(err.left(200));
    parts.removeAll(QString());
    m_detail->setText(parts.join(QStringLiteral("  \u00B7  ")));
    QStringList usage{usageLine(a), budgetLine(a), processLine(a)};
    const QJsonObject wt = a.value(QStringLiteral("worktree")).toObject();
    if (!wt.isEmpty())
        usage << tr("worktree: branch %1").arg(wt.value(QStringLiteral("branch")).toString());
    const QString sandboxDefault = m_session.agents().sandboxDefault();
    usage << sandboxLine(a, sandboxDefault);
    usage.removeAll(QString());
    m_usage->setText(usage.isEmpty() ? tr("no turns recorded yet")
                                     : usage.join(QStringLiteral("  \u00B7  ")));
    m_usage->setToolTip(sandboxDetails(a, sandboxDefault));
    // A PATCH may change it, and so may the service's default (on connecting).
    m_conversation->setSandboxed(isSandboxed(a, sandboxDefault));
}

void AgentPane::updateClassIcon() {
    const QString cls = m_session.agents().agent(m_agentId).value(k::Class).toString();
    if (m_agentId.isEmpty() || cls.isEmpty()) {
        m_classIcon->clear();
        m_classIcon->setToolTip({});
        m_classIconKey.clear();
        return;
    }
    // The class's icon once fetched (one fetch per class), its letter badge meanwhile and for
    // classes without one. Drawn again only when that changes: the header updates often.
    ShapingCatalog &shaping = m_session.shaping();
    const ClassIcon icon = shaping.classIcon(cls);
    const QString key = cls + QLatin1Char('\n') + icon.mediaType + QLatin1Char('\n') +
                        QString::number(qHash(icon.data));
    if (key != m_classIconKey) {
        m_classIconKey = key;
        m_classIcon->setPixmap(classPixmap(cls, icon, kClassIconSize));
    }
    const QJsonObject c = shaping.classes().itemById(cls);
    const QString name = c.value(k::Name_).toString();
    m_classIcon->setToolTip(c.isEmpty() || name.isEmpty() ? tr("class %1").arg(cls)
                                                          : tr("class %1 (%2)").arg(name, cls));
}

// GET /api/prompts?agentId= -> the prompts for everyone, the agent's class and the agent
void AgentPane::loadPrompts() {
    const quint64 generation = ++m_promptsGeneration;
    m_composer->setPrompts({});
    if (m_agentId.isEmpty())
        return;
    const QPointer<AgentPane> self(this);
    m_session.shaping().fetchPromptsFor(m_agentId, [self, generation](const client::RestReply &r) {
        if (!self || generation != self->m_promptsGeneration || !r.ok())
            return;
        QList<QPair<QString, QString>> prompts;
        for (const QJsonObject &p : itemsOf(r.body))
            prompts.append({p.value(k::Name_).toString(), p.value(sk::Text).toString()});
        self->m_composer->setPrompts(prompts);
    });
}

void AgentPane::loadOlder() {
    if (!m_conversation->showOlder())
        fetchOlderHistory();
}

void AgentPane::fetchOlderHistory() {
    if (m_agentId.isEmpty() || m_loading || !m_hasMore.value(m_agentId, true))
        return;
    m_loading = true;
    m_historyState->setText(tr("Loading older history..."));
    const QString id = m_agentId;
    const QPointer<AgentPane> self(this);
    m_session.loadOlderHistory(id, [self, id](bool hasMore) {
        if (!self)
            return;
        self->m_hasMore.insert(id, hasMore);
        if (id != self->m_agentId)
            return;
        self->m_loading = false;
        self->m_historyState->setText(hasMore ? tr("Scroll to the top for older history.")
                                              : tr("Beginning of history."));
    });
}

void AgentPane::send(const QString &text) {
    if (m_agentId.isEmpty())
        return;
    m_composer->setBusy(true);
    const QPointer<AgentPane> self(this);
    m_session.sendMessage(m_agentId, text, [self](const client::RestReply &r) {
        if (!self)
            return;
        self->m_composer->setBusy(false);
        if (r.ok()) {
            self->m_composer->clearAfterSend();
            self->m_historyState->setText(
                r.body.object().value(QStringLiteral("message")).toString());
        } else {
            self->m_historyState->setText(tr("Not sent: %1").arg(r.error));
            qCInfo(lcUi) << "message refused" << r.status << r.error;
        }
    });
}

void AgentPane::focusMessage() {
    m_composer->focusEditor();
}

void AgentPane::openFind() {
    m_tabs->setCurrentWidget(m_conversationPage);
    m_find->open();
}

bool AgentPane::conversationHasFocus() const {
    const QWidget *focus = QApplication::focusWidget();
    return focus && (focus == m_conversation || m_find->isAncestorOf(focus));
}

void AgentPane::showChanges() {
    m_tabs->setCurrentWidget(m_changes);
}

void AgentPane::focusSearch() {
    m_tabs->setCurrentWidget(m_search);
    m_search->focusQuery();
}

} // namespace flotilla::monitor::ui
