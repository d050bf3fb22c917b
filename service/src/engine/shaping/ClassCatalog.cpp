#include "shaping/ClassCatalog.h"

#include "domain/AgentValidation.h"
#include "domain/ProviderCatalog.h"
#include "protocol/HostNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "shaping/ShapingFields.h"
#include "shaping/ShapingLogging.h"
#include "shaping/SkillCatalog.h"

#include <QJsonArray>
#include <QXmlStreamReader>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace sc = wire::shaping::code;
namespace c = wire::code;

namespace {
const QString kKind = QStringLiteral("classes");
const QString kPng = QStringLiteral("image/png");
const QString kSvg = QStringLiteral("image/svg+xml");

Error unknownClass(const QString &slug) {
    return Error::notFound(c::NotFound, QStringLiteral("no class '%1'").arg(slug.left(60)));
}

Error invalidIcon(const QString &why) {
    return Error::invalid(sc::InvalidIcon, QStringLiteral("field 'icon': ") + why);
}

// An SVG is accepted only when it is well-formed XML whose root is <svg>: it is served with a
// sandboxing CSP and never inlined, but a file that is not an image has no business here.
bool isSvg(const QByteArray &bytes) {
    QXmlStreamReader xml(bytes);
    while (!xml.atEnd()) {
        if (xml.readNext() == QXmlStreamReader::StartElement) {
            if (xml.name() != QLatin1String("svg"))
                return false;
            while (!xml.atEnd())
                xml.readNext();
            return !xml.hasError();
        }
    }
    return false;
}
} // namespace

QJsonObject AgentClass::toJson() const {
    return QJsonObject{
        {sk::Slug, slug},
        {k::Name_, name},
        {sk::Description, description},
        {sk::Builtin, builtin},
        {sk::Instructions, instructions},
        {sk::Defaults, defaults},
        {sk::Skills, QJsonArray::fromStringList(skills)},
        {sk::AllowedTools, shaping::toolsJson(allowedTools)},
        {sk::DisallowedTools, shaping::toolsJson(disallowedTools)},
        {sk::HasIcon, !icon.isEmpty()},
        {sk::IconUrl, icon.isEmpty()
                          ? QJsonValue()
                          : QJsonValue(QStringLiteral("/api/classes/%1/icon").arg(slug))},
        {k::CreatedAt, createdAt},
        {sk::UpdatedAt, updatedAt},
    };
}

QJsonObject AgentClass::toStored() const {
    QJsonObject json = toJson();
    if (!icon.isEmpty())
        json.insert(sk::Icon, QJsonObject{{sk::MediaType, iconType},
                                          {sk::DataBase64, QString::fromLatin1(icon.toBase64())}});
    return json;
}

std::optional<AgentClass> AgentClass::fromStored(const QJsonObject &json) {
    AgentClass cls;
    cls.slug = json.value(sk::Slug).toString();
    if (!isSlug(cls.slug))
        return std::nullopt;
    cls.name = json.value(k::Name_).toString(cls.slug);
    cls.description = json.value(sk::Description).toString();
    cls.builtin = ClassCatalog::isBuiltin(cls.slug);
    cls.instructions = json.value(sk::Instructions).toString();
    cls.defaults = json.value(sk::Defaults).toObject();
    const QJsonArray skills = json.value(sk::Skills).toArray();
    for (const QJsonValue &v : skills)
        cls.skills.append(v.toString());
    cls.allowedTools = shaping::toolsFromJson(json.value(sk::AllowedTools));
    cls.disallowedTools = shaping::toolsFromJson(json.value(sk::DisallowedTools));
    const QJsonObject icon = json.value(sk::Icon).toObject();
    cls.iconType = icon.value(sk::MediaType).toString();
    cls.icon = QByteArray::fromBase64(icon.value(sk::DataBase64).toString().toLatin1());
    if (cls.icon.isEmpty())
        cls.iconType.clear();
    cls.createdAt = json.value(k::CreatedAt).toInteger();
    cls.updatedAt = json.value(sk::UpdatedAt).toInteger();
    return cls;
}

ClassCatalog::ClassCatalog(Database &db, const ProviderCatalog &providers,
                           const SkillCatalog &skills, Clock clock, QObject *parent)
    : QObject(parent)
    , m_store(db, kKind)
    , m_providers(providers)
    , m_skills(skills)
    , m_clock(std::move(clock)) {
    connect(&m_store, &CatalogStore::stored, this,
            [this](const QString &, const QJsonObject &item, bool created) {
                if (const auto cls = AgentClass::fromStored(item))
                    Q_EMIT classStored(*cls, created && !cls->builtin);
            });
    connect(&m_store, &CatalogStore::removed, this,
            [this](const QString &slug, const QJsonObject &item) {
                if (isBuiltin(slug)) {
                    // An override undone: the built-in class is back as it ships.
                    Q_EMIT classStored(builtinClass(slug), false);
                } else if (const auto cls = AgentClass::fromStored(item)) {
                    Q_EMIT classRemoved(*cls);
                }
            });
}

ClassCatalog::~ClassCatalog() = default;

bool ClassCatalog::isBuiltin(const QString &slug) {
    return slug == wire::shaping::builtin::Builder || slug == wire::shaping::builtin::Boss;
}

AgentClass ClassCatalog::builtinClass(const QString &slug) {
    AgentClass cls;
    cls.slug = slug;
    cls.builtin = true;
    if (slug == wire::shaping::builtin::Boss) {
        cls.name = QStringLiteral("Boss");
        cls.description = QStringLiteral("Leads a team: delegates tasks to its agents and "
                                         "reports their results.");
    } else {
        cls.name = QStringLiteral("Builder");
        cls.description = QStringLiteral("A general coding agent: the class of an agent created "
                                         "without one.");
    }
    return cls;
}

QList<AgentClass> ClassCatalog::classes() const {
    QList<AgentClass> out;
    for (QLatin1String slug : {wire::shaping::builtin::Builder, wire::shaping::builtin::Boss})
        out.append(*find(slug));
    const QStringList keys = m_store.keys();
    for (const QString &key : keys) {
        if (isBuiltin(key))
            continue;
        if (const auto cls = AgentClass::fromStored(*m_store.find(key)))
            out.append(*cls);
    }
    return out;
}

std::optional<AgentClass> ClassCatalog::find(const QString &slug) const {
    if (const QJsonObject *item = m_store.find(slug))
        return AgentClass::fromStored(*item);
    if (isBuiltin(slug))
        return builtinClass(slug);
    return std::nullopt;
}

Status ClassCatalog::parseIcon(const QJsonValue &value, AgentClass &into) {
    if (value.isNull()) {
        into.icon.clear();
        into.iconType.clear();
        return std::nullopt;
    }
    if (!value.isObject())
        return Error::badRequest(
            c::WrongType, QStringLiteral("field 'icon' must be {mediaType, dataBase64} or null"));
    const QJsonObject icon = value.toObject();
    if (Status e = shaping::rejectUnknown(icon, {sk::MediaType, sk::DataBase64}))
        return e;
    const QString type = icon.value(sk::MediaType).toString();
    if (type != kPng && type != kSvg)
        return invalidIcon(QStringLiteral("mediaType must be image/png or image/svg+xml"));
    const QByteArray encoded = icon.value(sk::DataBase64).toString().toLatin1();
    const auto decoded =
        QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded || decoded.decoded.isEmpty())
        return invalidIcon(QStringLiteral("dataBase64 is not base64 data"));
    if (decoded.decoded.size() > kIconMaxBytes)
        return invalidIcon(QStringLiteral("the image is larger than %1 bytes").arg(kIconMaxBytes));
    static const QByteArray pngSignature("\x89PNG\r\n\x1a\n", 8);
    if (type == kPng && !decoded.decoded.startsWith(pngSignature))
        return invalidIcon(QStringLiteral("the data is not a PNG image"));
    if (type == kSvg && !isSvg(decoded.decoded))
        return invalidIcon(QStringLiteral("the data is not an SVG document"));
    into.icon = decoded.decoded;
    into.iconType = type;
    return std::nullopt;
}

// The defaults are checked the way an agent's create body is, so that a class can never make
// an agent's creation fail on a value it holds. A host is the exception: it is only checked for
// its form here, and whether it exists when an agent is created (422 unknown_host then), since
// hosts come and go on their own.
Status ClassCatalog::validateDefaults(const QJsonObject &defaults) const {
    if (Status e =
            shaping::rejectUnknown(defaults, {k::Provider, k::Model, k::PermissionMode,
                                              sk::IdleTimeoutSeconds, wire::worktree::key::Worktree,
                                              wire::sandbox::key::Sandbox, wire::host::key::Host}))
        return e;
    if (const QJsonValue host = defaults.value(wire::host::key::Host); !host.isUndefined()) {
        if (!host.isString())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("defaults: field 'host' must be a string"));
        if (host.toString() != wire::host::Local && !isSlug(host.toString()))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("defaults: field 'host' must be \"local\" or a "
                                                 "host's name ([a-z][a-z0-9-]{0,39}), got '%1'")
                                      .arg(host.toString().left(60)));
    }
    QJsonObject probe = defaults;
    probe.insert(k::Name_, QStringLiteral("class-defaults"));
    probe.insert(k::Cwd, QStringLiteral("/"));
    const auto draft = parseAgentDraft(probe, m_providers);
    if (!draft) {
        Error e = draft.error();
        e.message = QStringLiteral("defaults: ") + e.message;
        return e;
    }
    // What another host cannot do yet (HostDirectory::checkAgent, SandboxPolicy) would refuse
    // every agent of the class made without overriding it.
    if (!draft->host.isEmpty() && draft->worktree)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("defaults: worktrees on another host are not built "
                                             "yet: 'worktree' and 'host' do not go together"));
    if (!draft->host.isEmpty() && draft->sandbox && draft->sandbox->confines())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("defaults: a workspace sandbox on another host is "
                                             "not built yet: 'sandbox' and 'host' do not go "
                                             "together"));
    return std::nullopt;
}

Status ClassCatalog::applyFields(const QJsonObject &body, AgentClass &cls) const {
    const auto name = shaping::text(body, k::Name_, kNameMax, false, true);
    if (!name)
        return name.error();
    if (*name)
        cls.name = name->value().trimmed();
    const auto description = shaping::text(body, sk::Description, kDescriptionMax, true);
    if (!description)
        return description.error();
    if (*description)
        cls.description = **description;
    const auto instructions = parseInstructions(body, sk::Instructions);
    if (!instructions)
        return instructions.error();
    if (*instructions)
        cls.instructions = **instructions;
    if (body.contains(sk::Defaults)) {
        const QJsonValue defaults = body.value(sk::Defaults);
        if (!defaults.isObject() && !defaults.isNull())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field 'defaults' must be an object or null"));
        if (Status e = validateDefaults(defaults.toObject()))
            return e;
        cls.defaults = defaults.toObject();
    }
    const auto skills = parseSlugList(body, sk::Skills);
    if (!skills)
        return skills.error();
    if (*skills) {
        if (const QStringList missing = m_skills.unknown(**skills); !missing.isEmpty())
            return Error::invalid(
                wire::shaping::code::UnknownSkill,
                QStringLiteral("no skill '%1'; create it first (POST /api/skills)")
                    .arg(missing.join(QStringLiteral("', '"))));
        cls.skills = **skills;
    }
    for (const auto &[key, field] : {std::pair{sk::AllowedTools, &cls.allowedTools},
                                     std::pair{sk::DisallowedTools, &cls.disallowedTools}}) {
        const auto tools = shaping::toolList(body, key);
        if (!tools)
            return tools.error();
        if (*tools)
            *field = **tools;
    }
    if (body.contains(sk::Icon)) {
        if (Status e = parseIcon(body.value(sk::Icon), cls))
            return e;
    }
    return std::nullopt;
}

Result<AgentClass> ClassCatalog::parseNew(const QJsonObject &body) const {
    if (Status e = shaping::rejectUnknown(body, {sk::Slug, k::Name_, sk::Description,
                                                 sk::Instructions, sk::Defaults, sk::Skills,
                                                 sk::AllowedTools, sk::DisallowedTools, sk::Icon}))
        return *e;
    const auto slug = shaping::slug(body);
    if (!slug)
        return slug.error();
    AgentClass cls;
    cls.slug = *slug;
    if (isBuiltin(cls.slug) || m_store.find(cls.slug))
        return Error::conflict(c::Conflict,
                               QStringLiteral("a class '%1' already exists").arg(cls.slug));
    cls.name = cls.slug;
    if (Status e = applyFields(body, cls))
        return *e;
    return cls;
}

Result<AgentClass> ClassCatalog::create(const QJsonObject &body) {
    auto parsed = parseNew(body);
    if (!parsed)
        return parsed.error();
    AgentClass cls = *parsed;
    cls.createdAt = cls.updatedAt = m_clock.nowMs();
    if (Status e = m_store.add(cls.slug, cls.toStored(), kMaxClasses, QStringLiteral("classes")))
        return *e;
    qCInfo(lcShaping).noquote() << "created class" << cls.slug;
    return cls;
}

Result<AgentClass> ClassCatalog::update(const QString &slug, const QJsonObject &body) {
    auto existing = find(slug);
    if (!existing)
        return unknownClass(slug);
    if (Status e = shaping::rejectUnknown(body, {k::Name_, sk::Description, sk::Instructions,
                                                 sk::Defaults, sk::Skills, sk::AllowedTools,
                                                 sk::DisallowedTools, sk::Icon}))
        return *e;
    AgentClass cls = *existing;
    if (Status e = applyFields(body, cls))
        return *e;
    const qint64 now = m_clock.nowMs();
    if (cls.createdAt == 0)
        cls.createdAt = now; // a built-in class's first override
    cls.updatedAt = now;
    if (Status e = m_store.put(cls.slug, cls.toStored()))
        return *e;
    qCInfo(lcShaping).noquote() << "updated class" << cls.slug;
    return cls;
}

Status ClassCatalog::remove(const QString &slug) {
    if (isBuiltin(slug))
        return Error::conflict(sc::BuiltinClass,
                               QStringLiteral("'%1' is a built-in class and cannot be deleted; "
                                              "PATCH it to change it")
                                   .arg(slug));
    if (!m_store.find(slug))
        return unknownClass(slug);
    if (Status e = m_store.remove(slug))
        return e;
    qCInfo(lcShaping).noquote() << "deleted class" << slug;
    return std::nullopt;
}

Status ClassCatalog::storeAll(const QList<AgentClass> &classes) {
    QList<CatalogStore::Item> items;
    const qint64 now = m_clock.nowMs();
    for (AgentClass cls : classes) {
        cls.createdAt = cls.updatedAt = now;
        items.append({cls.slug, cls.toStored()});
    }
    return m_store.putAll(items);
}

QStringList ClassCatalog::unknownSkills(const QStringList &slugs) const {
    return m_skills.unknown(slugs);
}

QJsonObject ClassCatalog::withDefaults(const QJsonObject &agentBody) const {
    const auto cls = find(agentBody.value(k::Class).toString(wire::shaping::builtin::Builder));
    if (!cls)
        return agentBody;
    QJsonObject body = agentBody;
    for (auto it = cls->defaults.constBegin(); it != cls->defaults.constEnd(); ++it) {
        if (!body.contains(it.key()))
            body.insert(it.key(), it.value());
    }
    // A model chosen for the class's provider means nothing to another provider the body names.
    if (agentBody.contains(k::Provider) && !agentBody.contains(k::Model) &&
        cls->defaults.contains(k::Model) &&
        agentBody.value(k::Provider) != cls->defaults.value(k::Provider))
        body.remove(k::Model);
    return body;
}

} // namespace flotilla
