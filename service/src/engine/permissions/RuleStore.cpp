#include "permissions/RuleStore.h"

#include "base/Logging.h"
#include "protocol/PermissionNames.h"
#include "storage/Database.h"
#include "storage/Transaction.h"

#include <QJsonDocument>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace pk = wire::permission::key;
namespace dec = wire::permission::decision;

namespace {
// The log is trimmed every this many writes, not on each: a DELETE per decision would double
// the cost of answering a request.
constexpr int kTrimEvery = 100;

QByteArray compact(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QString newId() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}
} // namespace

QJsonObject PermissionDecision::toJson() const {
    QJsonObject o{{k::Id, id},
                  {k::AgentId, agentId},
                  {k::AgentName, agentName},
                  {pk::Tool, tool},
                  {pk::ToolInput, toolInput},
                  {pk::Decision, allowed ? QString(dec::Allow) : QString(dec::Deny)},
                  {pk::By, by},
                  {k::Timestamp, timestamp}};
    if (!ruleId.isEmpty())
        o.insert(pk::RuleId, ruleId);
    if (!via.isEmpty())
        o.insert(pk::Via, via);
    if (suppressed > 0)
        o.insert(pk::Suppressed, suppressed);
    return o;
}

RuleStore::RuleStore(Database &db, const rules::ToolKinds &toolKinds, Clock clock, QObject *parent)
    : QObject(parent)
    , m_db(db)
    , m_toolKinds(toolKinds)
    , m_clock(std::move(clock)) {
}

RuleStore::~RuleStore() = default;

Status RuleStore::load() {
    m_rules.clear();
    return m_db.query(QStringLiteral("SELECT data FROM permission_rules ORDER BY rowid"), {},
                      [this](const QVariantList &row) {
                          PermissionRule r;
                          const QJsonObject json =
                              QJsonDocument::fromJson(row.value(0).toByteArray()).object();
                          if (PermissionRule::fromJson(json, &r))
                              m_rules.append(r);
                          else
                              qCWarning(lcStorage) << "skipping an unreadable permission rule";
                      });
}

QJsonArray RuleStore::rulesJson() const {
    QJsonArray out;
    for (const PermissionRule &r : m_rules)
        out.append(r.toJson());
    return out;
}

Result<PermissionRule> RuleStore::add(PermissionRule rule, const QString &source) {
    auto added = addAll({std::move(rule)}, source);
    if (!added)
        return added.error();
    return added->constFirst();
}

Result<QList<PermissionRule>> RuleStore::addAll(QList<PermissionRule> rules,
                                                const QString &source) {
    if (m_rules.size() + rules.size() > kMaxRules)
        return Error::conflict(c::Conflict,
                               QStringLiteral("at most %1 permission rules may exist (%2 do); "
                                              "delete some first")
                                   .arg(kMaxRules)
                                   .arg(m_rules.size()));
    const qint64 now = m_clock.nowMs();
    for (PermissionRule &r : rules) {
        r.id = newId();
        r.createdAt = now;
        r.source = source;
    }
    if (Status e = insert(rules))
        return *e;
    m_rules.append(rules);
    Q_EMIT rulesChanged();
    return rules;
}

Status RuleStore::insert(const QList<PermissionRule> &rules) {
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    for (const PermissionRule &r : rules) {
        if (Status e = m_db.exec(
                QStringLiteral(
                    "INSERT INTO permission_rules (id, created_at, data) VALUES (?, ?, ?)"),
                {r.id, r.createdAt, compact(r.toJson())}))
            return e;
    }
    if (!tx.commit())
        return m_db.commitError(QStringLiteral("cannot commit permission rule"));
    return std::nullopt;
}

Status RuleStore::remove(const QString &id) {
    const bool known = std::any_of(m_rules.cbegin(), m_rules.cend(),
                                   [&id](const PermissionRule &r) { return r.id == id; });
    if (!known)
        return Error::notFound(c::NotFound,
                               QStringLiteral("no permission rule with id '%1'").arg(id.left(60)));
    return deleteIds({id});
}

void RuleStore::removeScopedTo(const QString &agentId) {
    QStringList ids;
    for (const PermissionRule &r : std::as_const(m_rules)) {
        if (r.scopeAgentId == agentId)
            ids << r.id;
    }
    if (ids.isEmpty())
        return;
    if (Status e = deleteIds(ids))
        qCWarning(lcStorage).noquote()
            << "rules of deleted agent" << agentId << "not removed:" << e->message;
}

Status RuleStore::deleteIds(const QStringList &ids) {
    Transaction tx(m_db);
    if (!tx.isOpen())
        return Transaction::beginError();
    for (const QString &id : ids) {
        if (Status e = m_db.exec(QStringLiteral("DELETE FROM permission_rules WHERE id = ?"), {id}))
            return e;
    }
    if (!tx.commit())
        return m_db.commitError(QStringLiteral("cannot commit permission rule removal"));
    m_rules.erase(std::remove_if(m_rules.begin(), m_rules.end(),
                                 [&ids](const PermissionRule &r) { return ids.contains(r.id); }),
                  m_rules.end());
    Q_EMIT rulesChanged();
    return std::nullopt;
}

Status RuleStore::log(PermissionDecision decision) {
    if (decision.id.isEmpty())
        decision.id = newId();
    if (Status e =
            m_db.exec(QStringLiteral(
                          "INSERT INTO permission_decisions (id, agent_id, data) VALUES (?, ?, ?)"),
                      {decision.id, decision.agentId, compact(decision.toJson())}))
        return e;
    if (++m_logsSinceTrim >= kTrimEvery) {
        m_logsSinceTrim = 0;
        if (Status e = m_db.exec(QStringLiteral("DELETE FROM permission_decisions WHERE seq <= "
                                                "(SELECT MAX(seq) FROM permission_decisions) - ?"),
                                 {kMaxDecisions}))
            qCWarning(lcStorage).noquote() << "decision log not trimmed:" << e->message;
    }
    return std::nullopt;
}

Result<QList<PermissionDecision>> RuleStore::decisions(int limit, const QString &agentId) const {
    QList<PermissionDecision> out;
    const auto row = [&out](const QVariantList &r) {
        const QJsonObject o = QJsonDocument::fromJson(r.value(0).toByteArray()).object();
        PermissionDecision d;
        d.id = o.value(k::Id).toString();
        d.agentId = o.value(k::AgentId).toString();
        d.agentName = o.value(k::AgentName).toString();
        d.tool = o.value(pk::Tool).toString();
        d.toolInput = o.value(pk::ToolInput).toObject();
        d.allowed = o.value(pk::Decision).toString() == dec::Allow;
        d.by = o.value(pk::By).toString();
        d.ruleId = o.value(pk::RuleId).toString();
        d.timestamp = o.value(k::Timestamp).toInteger();
        d.via = o.value(pk::Via).toString();
        d.suppressed = o.value(pk::Suppressed).toInt();
        out.append(d);
    };
    // Past the bound even before the next trim: only the newest kMaxDecisions are the log.
    const int n = qBound(1, limit, kMaxDecisions);
    Status e = agentId.isEmpty()
                   ? m_db.query(QStringLiteral("SELECT data FROM permission_decisions "
                                               "ORDER BY seq DESC LIMIT ?"),
                                {n}, row)
                   : m_db.query(QStringLiteral("SELECT data FROM permission_decisions "
                                               "WHERE agent_id = ? ORDER BY seq DESC LIMIT ?"),
                                {agentId, n}, row);
    if (e)
        return *e;
    return out;
}

} // namespace flotilla
