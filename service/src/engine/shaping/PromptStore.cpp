#include "shaping/PromptStore.h"

#include "domain/AgentRegistry.h"
#include "domain/AgentValidation.h"
#include "domain/DisplayText.h"
#include "organization/TransferSupport.h"
#include "protocol/OrganizationNames.h"
#include "protocol/ShapingNames.h"
#include "shaping/ShapingLogging.h"

#include <QSet>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;

using transfer::at;

namespace {

// The catalog kind of saved prompts (storage/CatalogStore.h).
const QString kKind = QStringLiteral("prompts");

Error wrongType(const QString &field, const QString &what) {
    return Error::badRequest(c::WrongType,
                             QStringLiteral("field '%1' must be %2").arg(field, what));
}

Error invalid(const QString &message) {
    return Error::invalid(c::InvalidValue, message);
}

Status rejectUnknown(const QJsonObject &o, const QStringList &allowed, const QString &prefix) {
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1%2'; allowed: %3")
                                      .arg(prefix, it.key(), allowed.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

PromptDraft draftOf(const QJsonObject &item) {
    const QJsonObject scope = item.value(sk::Scope).toObject();
    PromptDraft d;
    d.name = item.value(k::Name_).toString();
    d.text = item.value(sk::Text).toString();
    d.agentClass = scope.value(k::Class).toString();
    d.agentId = scope.value(k::AgentId).toString();
    return d;
}

bool sameDraft(const PromptDraft &a, const PromptDraft &b) {
    return a.name == b.name && a.text == b.text && a.agentClass == b.agentClass &&
           a.agentId == b.agentId;
}

// scope: absent keeps `d`'s, null or {} is global, else {class} or {agentId} (not both).
Status parseScope(const QJsonObject &body, PromptDraft &d) {
    if (!body.contains(sk::Scope))
        return std::nullopt;
    const QJsonValue v = body.value(sk::Scope);
    d.agentClass.clear();
    d.agentId.clear();
    if (v.isNull())
        return std::nullopt;
    if (!v.isObject())
        return wrongType(QStringLiteral("scope"), QStringLiteral("an object or null"));
    const QJsonObject scope = v.toObject();
    if (Status e = rejectUnknown(scope, {k::Class, k::AgentId}, QStringLiteral("scope.")))
        return e;
    const QJsonValue cls = scope.value(k::Class);
    if (!cls.isUndefined() && !cls.isNull()) {
        if (!cls.isString())
            return wrongType(QStringLiteral("scope.class"), QStringLiteral("a string or null"));
        if (!isSlug(cls.toString()))
            return invalid(QStringLiteral("field 'scope.class' must match [a-z][a-z0-9-]{0,39}, "
                                          "got '%1'")
                               .arg(cls.toString().left(60)));
        d.agentClass = cls.toString();
    }
    const QJsonValue agent = scope.value(k::AgentId);
    if (!agent.isUndefined() && !agent.isNull()) {
        if (!agent.isString() || agent.toString().isEmpty())
            return wrongType(QStringLiteral("scope.agentId"),
                             QStringLiteral("a non-empty string or null"));
        d.agentId = agent.toString();
    }
    if (!d.agentClass.isEmpty() && !d.agentId.isEmpty())
        return invalid(QStringLiteral("field 'scope' names a class or an agent, not both (an "
                                      "agent's prompt is already its own)"));
    return std::nullopt;
}

QString scopeText(const PromptDraft &d) {
    if (!d.agentClass.isEmpty())
        return QStringLiteral("class '%1'").arg(d.agentClass);
    if (!d.agentName.isEmpty())
        return QStringLiteral("agent '%1'").arg(d.agentName);
    if (!d.agentId.isEmpty())
        return QStringLiteral("agent '%1'").arg(d.agentId);
    return QStringLiteral("global");
}

} // namespace

PromptStore::PromptStore(Database &db, AgentRegistry &agents, Clock clock, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_clock(std::move(clock))
    , m_store(db, kKind) {
    connect(&m_store, &CatalogStore::stored, this,
            [this](const QString &, const QJsonObject &item, bool created) {
                if (created)
                    Q_EMIT promptCreated(item);
                else
                    Q_EMIT promptUpdated(item);
            });
    connect(&m_store, &CatalogStore::removed, this,
            [this](const QString &, const QJsonObject &item) { Q_EMIT promptDeleted(item); });
    // An agent's prompts are its own: they go with it.
    connect(&m_agents, &AgentRegistry::agentDeleted, this,
            [this](const QString &id) { removeAgentPrompts(id); });
}

PromptStore::~PromptStore() = default;

Status PromptStore::load() {
    if (Status e = m_store.load())
        return e;
    QStringList dangling;
    const QList<QJsonObject> all = m_store.items();
    for (const QJsonObject &item : all) {
        const PromptDraft d = draftOf(item);
        if (!d.agentId.isEmpty() && !m_agents.find(d.agentId))
            dangling.append(item.value(k::Id).toString());
    }
    if (!dangling.isEmpty()) {
        qCWarning(lcShaping) << "removing" << dangling.size()
                             << "saved prompt(s) of agents that no longer exist";
        if (Status e = m_store.removeAll(dangling))
            qCWarning(lcShaping).noquote() << "could not remove them:" << e->message;
    }
    qCInfo(lcShaping) << "loaded" << m_store.count() << "saved prompt(s)";
    return std::nullopt;
}

QList<QJsonObject> PromptStore::promptsFor(const Agent &agent) const {
    QList<QJsonObject> out;
    const QList<QJsonObject> all = m_store.items();
    for (const QJsonObject &item : all) {
        const PromptDraft d = draftOf(item);
        const bool global = d.agentClass.isEmpty() && d.agentId.isEmpty();
        if (global || d.agentId == agent.id ||
            (!d.agentClass.isEmpty() && d.agentClass == agent.agentClass))
            out.append(item);
    }
    return out;
}

Result<PromptDraft> PromptStore::parseDraft(const QJsonObject &body,
                                            const std::optional<PromptDraft> &base) const {
    if (Status e = rejectUnknown(body, {k::Name_, sk::Text, sk::Scope}, QString()))
        return *e;
    PromptDraft d = base.value_or(PromptDraft{});
    if (!base) {
        for (const QLatin1String required : {k::Name_, sk::Text}) {
            if (!body.contains(required))
                return Error::badRequest(c::MissingField,
                                         QStringLiteral("field '%1' is required").arg(required));
        }
    }
    if (body.contains(k::Name_)) {
        if (!body.value(k::Name_).isString())
            return wrongType(k::Name_, QStringLiteral("a string"));
        d.name = body.value(k::Name_).toString().trimmed();
        if (d.name.isEmpty())
            return invalid(QStringLiteral("field 'name' must not be empty"));
        if (d.name.size() > kNameMax)
            return invalid(
                QStringLiteral("field 'name' is longer than %1 characters").arg(kNameMax));
        if (Status e = validateNameText(k::Name_, d.name))
            return *e;
    }
    if (body.contains(sk::Text)) {
        if (!body.value(sk::Text).isString())
            return wrongType(sk::Text, QStringLiteral("a string"));
        d.text = body.value(sk::Text).toString();
        if (d.text.isEmpty())
            return invalid(QStringLiteral("field 'text' must not be empty"));
        if (d.text.toUtf8().size() > kTextMaxBytes)
            return invalid(
                QStringLiteral("field 'text' is longer than %1 bytes (UTF-8)").arg(kTextMaxBytes));
    }
    if (Status e = parseScope(body, d))
        return *e;
    return d;
}

Status PromptStore::checkScopeAgent(const PromptDraft &draft) const {
    if (!draft.agentId.isEmpty() && !m_agents.find(draft.agentId))
        return Error::notFound(
            c::NotFound, QStringLiteral("scope.agentId: no agent with id '%1'").arg(draft.agentId));
    return std::nullopt;
}

QString PromptStore::sameNameAndScope(const PromptDraft &draft, const QString &exceptId) const {
    const QString folded = draft.name.toCaseFolded();
    const QList<QJsonObject> all = m_store.items();
    for (const QJsonObject &item : all) {
        QString id = item.value(k::Id).toString();
        const PromptDraft other = draftOf(item);
        if (id != exceptId && other.agentClass == draft.agentClass &&
            other.agentId == draft.agentId && other.name.toCaseFolded() == folded)
            return id;
    }
    return {};
}

QJsonObject PromptStore::toJson(const QString &id, const PromptDraft &d, qint64 createdAt,
                                qint64 updatedAt) const {
    QJsonObject scope;
    if (!d.agentClass.isEmpty())
        scope.insert(k::Class, d.agentClass);
    if (!d.agentId.isEmpty())
        scope.insert(k::AgentId, d.agentId);
    return QJsonObject{{k::Id, id},        {k::Name_, d.name},        {sk::Text, d.text},
                       {sk::Scope, scope}, {k::CreatedAt, createdAt}, {sk::UpdatedAt, updatedAt}};
}

Result<QJsonObject> PromptStore::create(const QJsonObject &body) {
    const auto draft = parseDraft(body, std::nullopt);
    if (!draft)
        return draft.error();
    if (Status e = checkScopeAgent(*draft))
        return *e;
    if (!sameNameAndScope(*draft, QString()).isEmpty())
        return Error::conflict(c::Conflict,
                               QStringLiteral("a saved prompt named '%1' exists already (%2)")
                                   .arg(draft->name, scopeText(*draft)));
    const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const qint64 now = m_clock.nowMs();
    const QJsonObject item = toJson(id, *draft, now, now);
    if (Status e = m_store.add(id, item, kMaxPrompts, QStringLiteral("saved prompts")))
        return *e;
    return item;
}

Result<QJsonObject> PromptStore::patch(const QString &id, const QJsonObject &body) {
    const QJsonObject *existing = m_store.find(id);
    if (!existing)
        return Error::notFound(c::NotFound, QStringLiteral("no saved prompt with id '%1'").arg(id));
    const PromptDraft before = draftOf(*existing);
    const auto draft = parseDraft(body, before);
    if (!draft)
        return draft.error();
    if (sameDraft(before, *draft))
        return *existing; // nothing changes: no write, no event
    if (Status e = checkScopeAgent(*draft))
        return *e;
    if (!sameNameAndScope(*draft, id).isEmpty())
        return Error::conflict(c::Conflict,
                               QStringLiteral("a saved prompt named '%1' exists already (%2)")
                                   .arg(draft->name, scopeText(*draft)));
    const QJsonObject item =
        toJson(id, *draft, existing->value(k::CreatedAt).toInteger(), m_clock.nowMs());
    if (Status e = m_store.put(id, item))
        return *e;
    return item;
}

Status PromptStore::remove(const QString &id) {
    if (!m_store.find(id))
        return Error::notFound(c::NotFound, QStringLiteral("no saved prompt with id '%1'").arg(id));
    return m_store.remove(id);
}

void PromptStore::removeAgentPrompts(const QString &agentId) {
    QStringList ids;
    const QList<QJsonObject> all = m_store.items();
    for (const QJsonObject &item : all) {
        if (draftOf(item).agentId == agentId)
            ids.append(item.value(k::Id).toString());
    }
    // On failure they stay until the next start, which drops prompts of missing agents (load).
    if (Status e = m_store.removeAll(ids))
        qCCritical(lcShaping).noquote()
            << "the deleted agent's saved prompts could not be removed:" << e->message;
}

QJsonArray
PromptStore::exportItems(const std::function<QString(const QString &agentId)> &agentName) const {
    QJsonArray out;
    const QList<QJsonObject> all = m_store.items();
    for (const QJsonObject &item : all) {
        const PromptDraft d = draftOf(item);
        QJsonObject scope;
        if (!d.agentClass.isEmpty())
            scope.insert(k::Class, d.agentClass);
        if (!d.agentId.isEmpty()) {
            const QString name = agentName(d.agentId);
            if (name.isEmpty())
                continue; // its agent is gone: the prompt goes with it
            scope.insert(sk::AgentName, name);
        }
        out.append(QJsonObject{{k::Name_, d.name}, {sk::Text, d.text}, {sk::Scope, scope}});
    }
    return out;
}

Result<PromptImport>
PromptStore::validateImport(const QJsonValue &value,
                            const std::function<bool(const QString &agentName)> &agentKnown) const {
    const QString category = QString(wire::org::category::AgentPrompts);
    const QString listWhere = QStringLiteral("categories.") + category;
    if (!value.isArray())
        return transfer::wrongType(listWhere, QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    PromptImport plan;
    QSet<QString> seen; // folded name + scope of each entry so far
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("%1[%2]").arg(listWhere).arg(i);
        if (!list.at(i).isObject())
            return transfer::wrongType(where, QStringLiteral("an object"));
        QJsonObject body = list.at(i).toObject();
        // Agents are named, not identified: ids are each service's own.
        QString agentName;
        if (body.value(sk::Scope).isObject()) {
            QJsonObject scope = body.value(sk::Scope).toObject();
            if (scope.contains(k::AgentId))
                return at(where, invalid(QStringLiteral("scope: name the agent (agentName); "
                                                        "agent ids are this service's own")));
            const QJsonValue name = scope.take(sk::AgentName);
            if (!name.isUndefined() && !name.isNull()) {
                if (!name.isString() || name.toString().isEmpty())
                    return at(where, wrongType(QStringLiteral("scope.agentName"),
                                               QStringLiteral("a non-empty string")));
                agentName = name.toString();
            }
            body.insert(sk::Scope, scope);
        }
        auto draft = parseDraft(body, std::nullopt);
        if (!draft)
            return at(where, draft.error());
        PromptDraft d = *draft;
        if (!agentName.isEmpty()) {
            if (!d.agentClass.isEmpty())
                return at(where, invalid(QStringLiteral("scope names a class or an agent, not "
                                                        "both")));
            if (!agentKnown(agentName)) {
                plan.warnings.append(QStringLiteral("%1: no agent named '%2'; the prompt was "
                                                    "left out")
                                         .arg(where, agentName));
                continue;
            }
            d.agentName = agentName;
            // Its id, when the agent exists already, for the conflict check below.
            if (const Agent *a = m_agents.findByName(agentName))
                d.agentId = a->id;
        }
        const QString key = d.name.toCaseFolded() + QLatin1Char('\n') + d.agentClass +
                            QLatin1Char('\n') + agentName.toCaseFolded();
        if (seen.contains(key))
            return at(
                where,
                invalid(
                    QStringLiteral("prompt '%1' (%2) appears twice").arg(d.name, scopeText(d))));
        seen.insert(key);
        if ((agentName.isEmpty() || !d.agentId.isEmpty()) &&
            !sameNameAndScope(d, QString()).isEmpty())
            plan.conflicts.append(transfer::conflict(category, d.name));
        d.agentId.clear(); // resolved again when applied: the agent may be one of the document
        plan.drafts.append(d);
    }
    if (m_store.count() + plan.drafts.size() > kMaxPrompts)
        return invalid(QStringLiteral("%1: at most %2 saved prompts may exist, %3 exist and the "
                                      "document adds %4")
                           .arg(listWhere)
                           .arg(kMaxPrompts)
                           .arg(m_store.count())
                           .arg(plan.drafts.size()));
    return plan;
}

Result<QStringList>
PromptStore::applyImport(const PromptImport &plan,
                         const std::function<QString(const QString &agentName)> &agentId) {
    QList<CatalogStore::Item> items;
    QStringList ids;
    const qint64 now = m_clock.nowMs();
    for (PromptDraft d : plan.drafts) {
        if (!d.agentName.isEmpty()) {
            d.agentId = agentId(d.agentName);
            // Validated against the agents there would be: only a caller's bug gets here.
            if (d.agentId.isEmpty() || !m_agents.find(d.agentId))
                return Error::internal(c::Internal,
                                       QStringLiteral("categories.agent-prompts: agent '%1' was "
                                                      "not created")
                                           .arg(d.agentName));
        }
        const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
        items.append({id, toJson(id, d, now, now)});
        ids.append(id);
    }
    if (Status e = m_store.putAll(items))
        return *e;
    return ids;
}

Status PromptStore::undoImport(const QStringList &ids) {
    return m_store.removeAll(ids);
}

} // namespace flotilla
