#include "domain/AgentRegistry.h"

#include "base/Logging.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "storage/Database.h"
#include "storage/StartupReport.h"
#include "storage/Transaction.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QUuid>

namespace flotilla {

namespace st = wire::status;

namespace {
Error noWorktrees() {
    return Error{ErrorKind::Unavailable, wire::worktree::code::GitUnavailable,
                 QStringLiteral("this service cannot make worktrees")};
}

QByteArray serialize(const QList<Agent> &agents, QJsonObject (Agent::*view)() const) {
    QJsonArray array;
    for (const Agent &a : agents)
        array.append((a.*view)());
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}
} // namespace

AgentRegistry::AgentRegistry(Database &db, const ProviderCatalog &providers, Clock clock,
                             QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_providers(providers)
    , m_clock(std::move(clock)) {
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(kRuntimeFlushMs);
    connect(&m_flushTimer, &QTimer::timeout, this, [this] {
        if (Status e = flush()) {
            qCWarning(lcAgents).noquote() << "runtime state not saved, retrying in"
                                          << kRuntimeFlushRetryMs / 1000 << "s:" << e->message;
            m_flushTimer.start(kRuntimeFlushRetryMs);
        } else {
            m_flushTimer.setInterval(kRuntimeFlushMs);
        }
    });
}

AgentRegistry::~AgentRegistry() {
    flush();
}

Status AgentRegistry::load(StartupReport &report) {
    QList<Agent> loaded;
    int unreadable = 0;
    Status e = m_db.query(
        QStringLiteral("SELECT data FROM agents ORDER BY rowid"), {}, [&](const QVariantList &row) {
            Agent a;
            const QJsonObject o = QJsonDocument::fromJson(row.value(0).toByteArray()).object();
            if (Agent::fromJson(o, &a))
                loaded.append(a);
            else
                ++unreadable;
        });
    if (e)
        return e;
    if (unreadable > 0) {
        const QString w =
            QStringLiteral("%1 stored agent record(s) could not be read and were skipped "
                           "(left in the database untouched)")
                .arg(unreadable);
        qCCritical(lcStorage).noquote() << w;
        report.addWarning(w);
    }
    for (Agent &a : loaded) {
        // No process survives a restart of the service.
        a.isProcessRunning = false;
        a.currentTool.clear();
        if (a.status == st::Working || a.status == st::WaitingPermission) {
            a.status = st::Error;
            a.lastError = QStringLiteral("The service stopped while this agent was working; "
                                         "the next message resumes the session.");
            m_dirty.insert(a.id);
        }
        m_order.append(a.id);
        m_idByFoldedName.insert(a.name.toCaseFolded(), a.id);
        m_agents.insert(a.id, a);
    }
    qCInfo(lcAgents) << "loaded" << m_order.size() << "agent(s)";
    invalidateCaches();
    return flush();
}

bool AgentRegistry::nameTaken(const QString &name, const QString &exceptId) const {
    const auto it = m_idByFoldedName.constFind(name.toCaseFolded());
    return it != m_idByFoldedName.constEnd() && *it != exceptId;
}

Result<AgentDraft> AgentRegistry::parseDraft(const QJsonObject &body, bool checkSkills) const {
    auto draft = parseAgentDraft(m_classes ? m_classes->withDefaults(body) : body, m_providers);
    if (!draft || !checkSkills)
        return draft;
    if (Status e = this->checkSkills(draft->skills))
        return *e;
    return draft;
}

Status AgentRegistry::checkSkills(const QStringList &slugs) const {
    const QStringList unknown = m_classes ? m_classes->unknownSkills(slugs) : QStringList();
    if (unknown.isEmpty())
        return std::nullopt;
    return Error::invalid(wire::shaping::code::UnknownSkill,
                          QStringLiteral("no skill '%1'; create it first (POST /api/skills)")
                              .arg(unknown.join(QStringLiteral("', '"))));
}

const Agent *AgentRegistry::findByName(const QString &name) const {
    const auto it = m_idByFoldedName.constFind(name.toCaseFolded());
    return it == m_idByFoldedName.constEnd() ? nullptr : find(*it);
}

Result<Agent> AgentRegistry::create(const AgentDraft &draft) {
    if (nameTaken(draft.name, QString()))
        return Error::conflict(
            wire::code::Conflict,
            QStringLiteral("an agent named '%1' already exists").arg(draft.name));
    if (Status e = checkHost(draft))
        return *e;
    if (Status e = checkCwd(draft.cwd))
        return *e;
    if (Status e = checkSandbox(draft))
        return *e;
    std::optional<WorktreePlacement> placed;
    if (draft.worktree) {
        if (!m_worktrees)
            return noWorktrees();
        auto made = m_worktrees->create(draft);
        if (!made)
            return made.error();
        placed = *made;
    }
    Agent a;
    a.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    a.name = draft.name;
    a.agentClass = draft.agentClass;
    a.status = st::Idle;
    a.cwd = draft.cwd;
    a.provider = draft.provider;
    a.model = draft.model;
    if (!draft.permissionMode.isEmpty())
        a.permissionMode = draft.permissionMode;
    a.idleTimeoutSeconds = draft.idleTimeoutSeconds;
    a.budget = draft.budget;
    a.customInstructions = draft.customInstructions;
    a.skills = draft.skills;
    if (draft.sandbox)
        a.sandbox = *draft.sandbox;
    a.host = draft.host;
    if (placed) {
        a.cwd = placed->cwd;
        a.worktree = placed->worktree;
    }
    a.createdAt = m_clock.nowMs();
    a.lastActivity = a.createdAt;
    if (Status e = persist({&a})) {
        if (placed) // the agent never existed: neither does what was made for it
            m_worktrees->release(a, WorktreeRemoval{true, true});
        return *e;
    }
    m_agents.insert(a.id, a);
    m_order.append(a.id);
    m_idByFoldedName.insert(a.name.toCaseFolded(), a.id);
    invalidateCaches();
    qCInfo(lcAgents).noquote() << "created agent" << a.id << a.name;
    Q_EMIT agentCreated(a);
    return a;
}

Result<Agent> AgentRegistry::patch(const QString &id, const AgentPatch &patch) {
    auto it = m_agents.find(id);
    if (it == m_agents.end())
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("no agent with id '%1'").arg(id));
    Agent updated = *it;
    if (patch.taskLabel)
        updated.taskLabel = *patch.taskLabel;
    if (patch.trackingStatus)
        updated.trackingStatus = *patch.trackingStatus;
    if (patch.trackingStatusDetail)
        updated.trackingStatusDetail = *patch.trackingStatusDetail;
    if (patch.idleTimeoutSeconds)
        updated.idleTimeoutSeconds = *patch.idleTimeoutSeconds;
    if (patch.customInstructions)
        updated.customInstructions = *patch.customInstructions;
    if (patch.skills)
        updated.skills = *patch.skills;
    if (patch.budget)
        updated.budget = *patch.budget;
    if (patch.sandbox && *patch.sandbox != it->sandbox) {
        updated.sandbox = *patch.sandbox;
        if (m_sandboxCheck) {
            if (Status e = m_sandboxCheck(updated))
                return *e;
        }
    }
    // Each side serialized once: comparing, diffing and writing all read these (toJson() is most
    // of what a PATCH costs, and agents may call set_status many times a second).
    const QJsonObject before = it->toJson();
    QJsonObject after = updated.toJson();
    if (after == before)
        return updated; // nothing changed: no write, no event
    updated.lastActivity = m_clock.nowMs();
    after.insert(wire::key::LastActivity, updated.lastActivity);
    // An agent's own status line (what set_status and its PATCH change, possibly many times a
    // second) is committed without its own fsync: it survives a crash of flotillad at once, and
    // power loss from the next durable write on (storage/Transaction.h). Anything else is durable
    // before the answer.
    const bool statusOnly = !patch.idleTimeoutSeconds && !patch.customInstructions &&
                            !patch.skills && !patch.budget && !patch.sandbox;
    if (Status e =
            writeRows({{id, after}}, statusOnly ? Durability::ProcessCrash : Durability::PowerLoss))
        return *e;
    const QJsonObject diff = Agent::changedFields(before, after);
    *it = updated;
    m_dirty.remove(id);
    invalidateCaches();
    Q_EMIT agentUpdated(id, diff);
    return updated;
}

void AgentRegistry::setForbiddenCwdRoots(const QStringList &roots) {
    m_forbiddenCwdRoots.clear();
    for (const QString &root : roots) {
        if (root.isEmpty())
            continue;
        const QFileInfo info(root);
        // Not there yet (a worktrees directory before the first worktree): as it will be.
        const QString path =
            info.exists() ? info.canonicalFilePath() : QDir::cleanPath(info.absoluteFilePath());
        if (!path.isEmpty() && path != QLatin1String("/"))
            m_forbiddenCwdRoots << path;
    }
}

Status AgentRegistry::checkCwd(const QString &cwd) const {
    // cwd is canonical (parseAgentDraft): symlinks and ".." cannot lead around this.
    for (const QString &root : m_forbiddenCwdRoots) {
        if (cwd == root || cwd.startsWith(root + QLatin1Char('/')))
            return Error::invalid(
                wire::code::InvalidValue,
                QStringLiteral("field 'cwd' is inside %1, which belongs to flotillad (its data, "
                               "worktrees or configuration): agents may not work there")
                    .arg(root));
    }
    return std::nullopt;
}

namespace {
// The agent as the draft would make it, as far as its sandbox and its host depend on it (a
// worktree agent's own worktree is writable whatever its cwd: the policy knows).
Agent probeOf(const AgentDraft &draft) {
    Agent probe;
    probe.cwd = draft.cwd;
    probe.provider = draft.provider;
    probe.host = draft.host;
    if (!draft.permissionMode.isEmpty())
        probe.permissionMode = draft.permissionMode;
    if (draft.sandbox)
        probe.sandbox = *draft.sandbox;
    return probe;
}
} // namespace

Status AgentRegistry::checkSandbox(const AgentDraft &draft) const {
    if (!m_sandboxCheck)
        return std::nullopt;
    return m_sandboxCheck(probeOf(draft));
}

Status AgentRegistry::checkHost(const AgentDraft &draft) const {
    if (draft.host.isEmpty() || !m_hostCheck)
        return std::nullopt;
    return m_hostCheck(probeOf(draft), draft.worktree.has_value());
}

Status AgentRegistry::checkDraft(const AgentDraft &draft) const {
    if (Status e = checkHost(draft))
        return e;
    if (Status e = checkCwd(draft.cwd))
        return e;
    if (Status e = checkSandbox(draft))
        return e;
    if (!draft.worktree)
        return std::nullopt;
    if (!m_worktrees)
        return noWorktrees();
    return m_worktrees->check(draft);
}

Status AgentRegistry::remove(const QString &id, const WorktreeRemoval &how,
                             QJsonObject *worktreeReport) {
    auto it = m_agents.find(id);
    if (it == m_agents.end())
        return Error::notFound(wire::code::NotFound,
                               QStringLiteral("no agent with id '%1'").arg(id));
    const Agent victim = *it;

    // Unlink it from its boss and from its subordinates, in the same transaction as the delete.
    QList<Agent> relinked;
    for (const Agent &other : std::as_const(m_agents)) {
        if (other.id == id)
            continue;
        if (other.subordinateIds.contains(id) || other.bossId == id) {
            Agent copy = other;
            copy.subordinateIds.removeAll(id);
            if (copy.bossId == id)
                copy.bossId.clear();
            relinked.append(copy);
        }
    }
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    Status e = m_db.exec(QStringLiteral("DELETE FROM agents WHERE id = ?"), {id});
    for (const Agent &r : relinked) {
        if (e)
            break;
        e = m_db.exec(
            QStringLiteral("UPDATE agents SET data = ?, updated_at = ? WHERE id = ?"),
            {QJsonDocument(r.toJson()).toJson(QJsonDocument::Compact), m_clock.nowMs(), r.id});
    }
    if (!e && !tx.commit())
        e = m_db.commitError(QStringLiteral("cannot commit delete"));
    if (e)
        return *e;
    m_agents.erase(it);
    m_order.removeOne(id);
    m_idByFoldedName.remove(victim.name.toCaseFolded());
    m_dirty.remove(id);
    for (const Agent &r : relinked) {
        Agent &live = m_agents[r.id];
        const QJsonObject diff = Agent::changedFields(live, r);
        live = r;
        Q_EMIT agentUpdated(r.id, diff);
    }
    invalidateCaches();
    qCInfo(lcAgents).noquote() << "deleted agent" << id << victim.name;
    Q_EMIT agentDeleted(id); // its process ends here, before its worktree goes
    if (victim.worktree.isSet() && m_worktrees) {
        const QJsonObject report = m_worktrees->release(victim, how);
        if (worktreeReport)
            *worktreeReport = report;
    }
    return std::nullopt;
}

const Agent *AgentRegistry::find(const QString &id) const {
    auto it = m_agents.constFind(id);
    return it == m_agents.constEnd() ? nullptr : &*it;
}

QList<Agent> AgentRegistry::agents() const {
    QList<Agent> list;
    list.reserve(m_order.size());
    for (const QString &id : m_order)
        list.append(m_agents.value(id));
    return list;
}

bool AgentRegistry::updateRuntime(const QString &id, const std::function<void(Agent &)> &mutate) {
    auto it = m_agents.find(id);
    if (it == m_agents.end())
        return false;
    Agent updated = *it;
    mutate(updated);
    if (updated == *it)
        return true;
    const QJsonObject diff = Agent::changedFields(*it, updated);
    *it = std::move(updated);
    m_dirty.insert(id);
    invalidateCaches();
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
    Q_EMIT agentUpdated(id, diff);
    return true;
}

Status AgentRegistry::flush() {
    if (m_dirty.isEmpty())
        return std::nullopt;
    QList<const Agent *> pending;
    for (const QString &id : std::as_const(m_dirty)) {
        if (const Agent *a = find(id))
            pending.append(a);
    }
    Status e = persist(pending);
    if (!e)
        m_dirty.clear();
    return e;
}

Status AgentRegistry::persist(const QList<const Agent *> &agents, Durability durability) {
    QList<QPair<QString, QJsonObject>> rows;
    rows.reserve(agents.size());
    for (const Agent *a : agents)
        rows.append({a->id, a->toJson()});
    return writeRows(rows, durability);
}

Status AgentRegistry::writeRows(const QList<QPair<QString, QJsonObject>> &rows,
                                Durability durability) {
    if (rows.isEmpty())
        return std::nullopt;
    Transaction tx(m_db, durability);
    if (!tx.isOpen())
        return Transaction::beginError();
    const qint64 now = m_clock.nowMs();
    for (const auto &[id, json] : rows) {
        // Upsert keeps the rowid, so creation order survives updates.
        Status e =
            m_db.exec(QStringLiteral("INSERT INTO agents (id, data, updated_at) VALUES (?, ?, ?) "
                                     "ON CONFLICT(id) DO UPDATE SET data = excluded.data, "
                                     "updated_at = excluded.updated_at"),
                      {id, QJsonDocument(json).toJson(QJsonDocument::Compact), now});
        if (e)
            return e;
    }
    if (!tx.commit())
        return m_db.commitError(QStringLiteral("cannot commit agent write"));
    return std::nullopt;
}

void AgentRegistry::invalidateCaches() {
    m_cachesValid = false;
}

const QByteArray &AgentRegistry::listJson() {
    statusJson();
    return m_listCache;
}

const QByteArray &AgentRegistry::simpleJson() {
    statusJson();
    return m_simpleCache;
}

const QByteArray &AgentRegistry::statusJson() {
    if (!m_cachesValid) {
        const QList<Agent> all = agents();
        m_listCache = serialize(all, &Agent::toJson);
        m_statusCache = serialize(all, &Agent::toStatusJson);
        m_simpleCache = serialize(all, &Agent::toSimpleJson);
        m_cachesValid = true;
    }
    return m_statusCache;
}

QJsonArray AgentRegistry::listArray() const {
    QJsonArray array;
    for (const QString &id : m_order)
        array.append(m_agents.value(id).toJson());
    return array;
}

} // namespace flotilla
