#include "shaping/SkillCatalog.h"

#include "domain/AgentValidation.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "shaping/ShapingFields.h"
#include "shaping/ShapingLogging.h"

#include <QRegularExpression>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sc = wire::shaping::code;
namespace c = wire::code;

namespace {
const QString kKind = QStringLiteral("skills");

Error unknownSkill(const QString &slug) {
    return Error::notFound(c::NotFound, QStringLiteral("no skill '%1'").arg(slug.left(60)));
}
} // namespace

QJsonObject Skill::toJson() const {
    return QJsonObject{{sk::Slug, slug},
                       {k::Name_, name},
                       {sk::Description, description},
                       {sk::Content, content},
                       {sk::AllowedTools, shaping::toolsJson(allowedTools)},
                       {sk::Enabled, enabled},
                       {k::CreatedAt, createdAt},
                       {sk::UpdatedAt, updatedAt}};
}

std::optional<Skill> Skill::fromJson(const QJsonObject &json) {
    Skill s;
    s.slug = json.value(sk::Slug).toString();
    if (!isSlug(s.slug))
        return std::nullopt;
    s.name = json.value(k::Name_).toString(s.slug);
    s.description = json.value(sk::Description).toString();
    s.content = json.value(sk::Content).toString();
    s.allowedTools = shaping::toolsFromJson(json.value(sk::AllowedTools));
    s.enabled = json.value(sk::Enabled).toBool(true);
    s.createdAt = json.value(k::CreatedAt).toInteger();
    s.updatedAt = json.value(sk::UpdatedAt).toInteger();
    return s;
}

SkillCatalog::SkillCatalog(Database &db, Clock clock, QObject *parent)
    : QObject(parent)
    , m_store(db, kKind)
    , m_clock(std::move(clock)) {
    connect(&m_store, &CatalogStore::stored, this,
            [this](const QString &, const QJsonObject &item, bool created) {
                if (const auto skill = Skill::fromJson(item))
                    Q_EMIT skillStored(*skill, created);
            });
    connect(&m_store, &CatalogStore::removed, this,
            [this](const QString &, const QJsonObject &item) {
                if (const auto skill = Skill::fromJson(item))
                    Q_EMIT skillRemoved(*skill);
            });
}

SkillCatalog::~SkillCatalog() = default;

QList<Skill> SkillCatalog::skills() const {
    QList<Skill> out;
    const QList<QJsonObject> items = m_store.items();
    for (const QJsonObject &item : items) {
        if (const auto skill = Skill::fromJson(item))
            out.append(*skill);
    }
    return out;
}

std::optional<Skill> SkillCatalog::find(const QString &slug) const {
    const QJsonObject *item = m_store.find(slug);
    return item ? Skill::fromJson(*item) : std::nullopt;
}

QString SkillCatalog::stamp(const QString &slug) const {
    const QJsonObject *item = m_store.find(slug);
    if (!item || !item->value(sk::Enabled).toBool(true))
        return {};
    return slug + QLatin1Char('@') + QString::number(item->value(sk::UpdatedAt).toInteger());
}

QStringList SkillCatalog::unknown(const QStringList &slugs) const {
    QStringList out;
    for (const QString &slug : slugs) {
        if (!contains(slug))
            out.append(slug);
    }
    return out;
}

// Every field but the slug, for create and PATCH alike; `skill` keeps what the body leaves out.
Status SkillCatalog::applyFields(const QJsonObject &body, Skill &skill) const {
    const auto name = shaping::text(body, k::Name_, kNameMax, false, true);
    if (!name)
        return name.error();
    if (*name) {
        // What both CLIs accept as a skill's name (front matter `name`).
        static const QRegularExpression nameRe(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
        if (!nameRe.match(**name).hasMatch())
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("field 'name' must be lower-case letters, digits and '-', got '%1'")
                    .arg(name->value().left(60)));
        skill.name = **name;
    }
    const auto description = shaping::text(body, sk::Description, kDescriptionMax, false, true);
    if (!description)
        return description.error();
    if (*description)
        skill.description = description->value().simplified(); // one line in the CLI's listing
    const auto content = shaping::text(body, sk::Content, kContentMaxBytes);
    if (!content)
        return content.error();
    if (*content)
        skill.content = **content;
    const auto tools = shaping::toolList(body, sk::AllowedTools);
    if (!tools)
        return tools.error();
    if (*tools)
        skill.allowedTools = **tools;
    const auto enabled = shaping::boolean(body, sk::Enabled);
    if (!enabled)
        return enabled.error();
    if (*enabled)
        skill.enabled = **enabled;
    return std::nullopt;
}

Result<Skill> SkillCatalog::parseNew(const QJsonObject &body) const {
    if (Status e = shaping::rejectUnknown(body, {sk::Slug, k::Name_, sk::Description, sk::Content,
                                                 sk::AllowedTools, sk::Enabled}))
        return *e;
    for (QLatin1String required : {sk::Slug, sk::Description}) {
        if (!body.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    const auto slug = shaping::slug(body);
    if (!slug)
        return slug.error();
    Skill skill;
    skill.slug = *slug;
    skill.name = skill.slug;
    if (Status e = applyFields(body, skill))
        return *e;
    if (contains(skill.slug))
        return Error::conflict(c::Conflict,
                               QStringLiteral("a skill '%1' already exists").arg(skill.slug));
    return skill;
}

Result<Skill> SkillCatalog::create(const QJsonObject &body) {
    auto parsed = parseNew(body);
    if (!parsed)
        return parsed.error();
    Skill skill = *parsed;
    skill.createdAt = skill.updatedAt = m_clock.nowMs();
    if (Status e = m_store.add(skill.slug, skill.toJson(), kMaxSkills, QStringLiteral("skills")))
        return *e;
    qCInfo(lcShaping).noquote() << "created skill" << skill.slug;
    return skill;
}

Result<Skill> SkillCatalog::update(const QString &slug, const QJsonObject &body) {
    auto existing = find(slug);
    if (!existing)
        return unknownSkill(slug);
    if (Status e = shaping::rejectUnknown(
            body, {k::Name_, sk::Description, sk::Content, sk::AllowedTools, sk::Enabled}))
        return *e;
    Skill skill = *existing;
    if (Status e = applyFields(body, skill))
        return *e;
    // Strictly later than the last change, even within one millisecond: stamp() relies on it.
    skill.updatedAt = std::max(m_clock.nowMs(), existing->updatedAt + 1);
    if (Status e = m_store.put(skill.slug, skill.toJson()))
        return *e;
    qCInfo(lcShaping).noquote() << "updated skill" << skill.slug;
    return skill;
}

Status SkillCatalog::remove(const QString &slug) {
    if (!contains(slug))
        return unknownSkill(slug);
    if (Status e = m_store.remove(slug))
        return e;
    qCInfo(lcShaping).noquote() << "deleted skill" << slug;
    return std::nullopt;
}

Status SkillCatalog::storeAll(const QList<Skill> &skills) {
    QList<CatalogStore::Item> items;
    const qint64 now = m_clock.nowMs();
    for (Skill skill : skills) {
        skill.createdAt = skill.updatedAt = now;
        items.append({skill.slug, skill.toJson()});
    }
    return m_store.putAll(items);
}

} // namespace flotilla
