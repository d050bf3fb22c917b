#include "ui/AgentActions.h"

#include "core/MonitorSession.h"
#include "protocol/HostNames.h"
#include "protocol/ShapingNames.h"
#include "ui/AgentsView.h"
#include "ui/ClassBadge.h"
#include "ui/NewAgentDialog.h"
#include "ui/SystemPromptDialog.h"

#include <QAction>
#include <QJsonArray>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <algorithm>

namespace flotilla::monitor::ui {

namespace {
QAction *makeAction(QObject *parent, const QString &text, const QKeySequence &key,
                    const QString &name) {
    auto *a = new QAction(text, parent);
    a->setShortcut(key);
    a->setObjectName(name);
    return a;
}

// {succeeded, failed: [{id, error}]} -> a sentence, or empty when all succeeded.
QString bulkFailures(const client::RestReply &r) {
    if (!r.ok())
        return r.error;
    QStringList errors;
    for (const QJsonValue &v : r.body.object().value(QStringLiteral("failed")).toArray())
        errors << v.toObject().value(QStringLiteral("error")).toString();
    return errors.join(QStringLiteral("; "));
}
} // namespace

AgentActions::AgentActions(MonitorSession &session, AgentsView &view, QWidget *window)
    : QObject(window)
    , newAgent(makeAction(this, tr("&New agent..."), QKeySequence::New,
                          QStringLiteral("actionNewAgent")))
    , deleteAgents(makeAction(this, tr("&Delete agents..."), QKeySequence::Delete,
                              QStringLiteral("actionDeleteAgents")))
    , stopAgents(makeAction(this, tr("&Stop agents"), QKeySequence(Qt::CTRL | Qt::Key_Period),
                            QStringLiteral("actionStopAgents")))
    , clearContext(makeAction(this, tr("&Clear context"),
                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X),
                              QStringLiteral("actionClearContext")))
    , systemPrompt(makeAction(this, tr("Global system &prompt..."),
                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P),
                              QStringLiteral("actionSystemPrompt")))
    , m_session(session)
    , m_resolve([this](const QString &) { return &m_session; })
    , m_view(view)
    , m_window(window) {
    // Del must not fire while the user edits text: the table owns it.
    deleteAgents->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_view.table()->addAction(deleteAgents);
    connect(newAgent, &QAction::triggered, this, &AgentActions::createAgent);
    connect(deleteAgents, &QAction::triggered, this, &AgentActions::deleteSelected);
    connect(stopAgents, &QAction::triggered, this, &AgentActions::stopSelected);
    connect(clearContext, &QAction::triggered, this, &AgentActions::clearSelected);
    connect(systemPrompt, &QAction::triggered, this, &AgentActions::editSystemPrompt);
    connect(&m_view, &AgentsView::selectionChanged, this, &AgentActions::updateEnabled);
    updateEnabled();
}

QList<QAction *> AgentActions::all() const {
    return {newAgent, deleteAgents, stopAgents, clearContext, systemPrompt};
}

void AgentActions::updateEnabled() {
    const bool any = !m_view.selectedAgentIds().isEmpty();
    deleteAgents->setEnabled(any);
    stopAgents->setEnabled(any);
    clearContext->setEnabled(any);
}

QString AgentActions::describe(const QStringList &ids) const {
    QStringList names;
    for (const QString &id : ids) {
        MonitorSession *s = m_resolve(id);
        names << (s ? s->agents() : m_session.agents())
                     .agent(id)
                     .value(QStringLiteral("name"))
                     .toString();
    }
    if (names.size() <= 4)
        return names.join(QStringLiteral(", "));
    return names.mid(0, 3).join(QStringLiteral(", ")) + tr(" and %1 more").arg(names.size() - 3);
}

void AgentActions::createAgent() {
    auto *dialog = new NewAgentDialog(m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    const QPointer<NewAgentDialog> d(dialog);
    m_session.client().get(QStringLiteral("/api/areas"), [d](const client::RestReply &r) {
        if (!d || !r.ok())
            return;
        QList<QPair<QString, QString>> areas;
        for (const QJsonValue &v : r.body.array())
            areas.append({v.toObject().value(QStringLiteral("id")).toString(),
                          v.toObject().value(QStringLiteral("name")).toString()});
        d->setAreas(areas);
    });
    offerShaping(dialog);
    offerHosts(dialog);
    connect(dialog, &NewAgentDialog::createRequested, this, [this, d](const QJsonObject &fields) {
        d->setEnabled(false);
        const QString areaId = d->areaId();
        m_session.createAgent(fields, [this, d, areaId](const client::RestReply &r) {
            if (!d)
                return;
            if (!r.ok()) {
                d->showError(r.error.isEmpty() ? tr("HTTP %1").arg(r.status) : r.error);
                return;
            }
            const QString id = r.body.object().value(QStringLiteral("id")).toString();
            // Creation takes no area: the agent moves into the chosen one right after.
            if (!areaId.isEmpty())
                m_session.client().post(
                    QStringLiteral("/api/agents/bulk/move-area"),
                    {{QStringLiteral("agentIds"), QJsonArray{id}},
                     {QStringLiteral("areaId"), areaId}},
                    [this](const client::RestReply &moved) {
                        if (!moved.ok())
                            Q_EMIT status(tr("Not moved to the area: %1").arg(moved.error));
                    });
            d->QDialog::accept();
            Q_EMIT status(
                tr("Created %1").arg(r.body.object().value(QStringLiteral("name")).toString()));
            // agent_created may arrive before or after this answer: select once the row exists.
            if (m_session.agents().rowOf(id) >= 0)
                m_view.selectAgent(id);
            else
                QMetaObject::invokeMethod(
                    this, [this, id] { m_view.selectAgent(id); }, Qt::QueuedConnection);
        });
    });
    dialog->open();
}

// The service's classes (with their icons) and skills, as they are and as they change while the
// dialog is open.
void AgentActions::offerShaping(NewAgentDialog *dialog) {
    namespace sk = ::flotilla::wire::shaping::key;
    ShapingCatalog &catalog = m_session.shaping();
    catalog.ensureLoaded(ShapingKind::Classes);
    catalog.ensureLoaded(ShapingKind::Skills);
    auto fillClasses = [dialog, &catalog] {
        const ShapingListModel &classes = catalog.classes();
        if (!catalog.isLoaded(ShapingKind::Classes))
            return; // the built-in guesses until the list comes
        QList<NewAgentDialog::ClassChoice> choices;
        for (int row = 0; row < classes.rowCount(); ++row) {
            const QJsonObject c = classes.item(row);
            const QString slug = c.value(sk::Slug).toString();
            choices.append({slug, c.value(sk::Description).toString(), classIcon(catalog, slug, 16),
                            c.value(sk::Defaults).toObject()});
        }
        dialog->setClasses(choices);
    };
    auto fillSkills = [dialog, &catalog] {
        const ShapingListModel &skills = catalog.skills();
        QList<QPair<QString, QString>> choices;
        for (int row = 0; row < skills.rowCount(); ++row) {
            const QJsonObject s = skills.item(row);
            if (s.value(sk::Enabled).toBool(true))
                choices.append({s.value(sk::Slug).toString(), s.value(sk::Description).toString()});
        }
        dialog->setSkills(choices);
    };
    fillClasses();
    fillSkills();
    for (QAbstractItemModel *model :
         std::initializer_list<QAbstractItemModel *>{&catalog.classes(), &catalog.skills()}) {
        auto refill = model == &catalog.classes() ? std::function<void()>(fillClasses)
                                                  : std::function<void()>(fillSkills);
        connect(model, &QAbstractItemModel::modelReset, dialog, refill);
        connect(model, &QAbstractItemModel::rowsInserted, dialog, refill);
        connect(model, &QAbstractItemModel::rowsRemoved, dialog, refill);
        connect(model, &QAbstractItemModel::dataChanged, dialog, refill);
    }
    // An icon that arrives later.
    connect(&catalog, &ShapingCatalog::classChanged, dialog, fillClasses);
}

// The service's hosts with their state, as they are and as they change while the dialog is open.
void AgentActions::offerHosts(NewAgentDialog *dialog) {
    namespace hk = ::flotilla::wire::host::key;
    const HostsModel &hosts = m_session.hosts();
    auto fill = [dialog, &hosts] {
        QList<QPair<QString, QString>> choices;
        for (const QString &name : hosts.names()) {
            const QString state = hosts.host(name).value(hk::State).toString();
            choices.append({name, state.isEmpty() ? name : tr("%1 (%2)").arg(name, state)});
        }
        dialog->setHosts(choices);
    };
    fill();
    connect(&hosts, &QAbstractItemModel::rowsInserted, dialog, fill);
    connect(&hosts, &QAbstractItemModel::rowsRemoved, dialog, fill);
    connect(&hosts, &QAbstractItemModel::dataChanged, dialog, fill);
    connect(&hosts, &QAbstractItemModel::modelReset, dialog, fill);
}

void AgentActions::deleteSelected() {
    const QStringList ids = m_view.selectedAgentIds();
    if (ids.isEmpty())
        return;
    auto *box = new QMessageBox(QMessageBox::Warning, tr("Delete agents"),
                                tr("Delete %n agent(s): %1?\nTheir processes and running tasks "
                                   "are stopped. Conversation files stay on disk.",
                                   nullptr, int(ids.size()))
                                    .arg(describe(ids)),
                                QMessageBox::Cancel, m_window);
    box->setObjectName(QStringLiteral("confirmDelete"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *yes = box->addButton(tr("&Delete"), QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::buttonClicked, this, [this, ids, yes](QAbstractButton *b) {
        if (b != yes)
            return;
        for (const auto &[session, some] : bySession(ids))
            session->deleteAgents(some, [this](const client::RestReply &r) {
                const QString failed = bulkFailures(r);
                Q_EMIT status(failed.isEmpty() ? tr("Deleted")
                                               : tr("Delete failed: %1").arg(failed));
            });
    });
    box->open();
}

void AgentActions::stopSelected() {
    const QStringList ids = m_view.selectedAgentIds();
    if (ids.isEmpty())
        return;
    for (const auto &[session, some] : bySession(ids))
        session->stopAgents(some, [this, some = some](const client::RestReply &r) {
            const QString failed = bulkFailures(r);
            Q_EMIT status(failed.isEmpty() ? tr("Stopped %1").arg(describe(some))
                                           : tr("Stop failed: %1").arg(failed));
        });
}

void AgentActions::clearSelected() {
    const QStringList ids = m_view.selectedAgentIds();
    if (ids.isEmpty())
        return;
    for (const auto &[session, some] : bySession(ids))
        session->clearContext(some, [this, some = some](const client::RestReply &r) {
            const QString failed = bulkFailures(r);
            Q_EMIT status(failed.isEmpty() ? tr("Cleared the context of %1").arg(describe(some))
                                           : tr("Clear context failed: %1").arg(failed));
        });
}

QList<QPair<MonitorSession *, QStringList>> AgentActions::bySession(const QStringList &ids) const {
    QList<QPair<MonitorSession *, QStringList>> out;
    for (const QString &id : ids) {
        MonitorSession *s = m_resolve(id);
        if (!s)
            continue;
        auto it = std::find_if(out.begin(), out.end(), [s](const auto &p) { return p.first == s; });
        if (it == out.end())
            out.append({s, {id}});
        else
            it->second << id;
    }
    return out;
}

void AgentActions::editSystemPrompt() {
    auto *dialog = new SystemPromptDialog(m_session, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this] { Q_EMIT status(tr("System prompt saved")); });
    dialog->open();
}

} // namespace flotilla::monitor::ui
