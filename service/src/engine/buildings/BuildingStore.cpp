#include "buildings/BuildingStore.h"

#include "buildings/BuildingsLogging.h"
#include "domain/AgentRegistry.h"
#include "domain/DisplayText.h"
#include "exec/SecretStore.h"
#include "protocol/ExecNames.h"
#include "protocol/ShapingNames.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QUrl>
#include <QUuid>

namespace flotilla {

namespace k = wire::key;
namespace sk = wire::shaping::key;
namespace c = wire::code;

namespace {

const QString kKind = QStringLiteral("buildings");

QJsonValue nullable(const QString &s) {
    return s.isEmpty() ? QJsonValue() : QJsonValue(s);
}

Error wrongType(QLatin1String field, const char *what) {
    return Error::badRequest(
        c::WrongType, QStringLiteral("field '%1' must be %2").arg(field, QLatin1String(what)));
}

Error invalid(const QString &message) {
    return Error::invalid(c::InvalidValue, message);
}

// A string field that may be null or absent (`*present` says whether the body had it).
Result<QString> optionalString(const QJsonObject &body, QLatin1String field, bool *present) {
    const QJsonValue v = body.value(field);
    *present = !v.isUndefined();
    if (v.isUndefined() || v.isNull())
        return QString();
    if (!v.isString())
        return wrongType(field, "a string or null");
    return v.toString();
}

Result<QStringList> parseCommand(const QJsonValue &v) {
    if (!v.isArray())
        return wrongType(sk::Command, "an array of strings (argv)");
    const QJsonArray array = v.toArray();
    if (array.isEmpty())
        return invalid(QStringLiteral("field 'command' must name a program: [\"npm\", \"run\", "
                                      "\"dev\"]"));
    if (array.size() > BuildingStore::kMaxArgs)
        return invalid(QStringLiteral("field 'command' has more than %1 arguments")
                           .arg(BuildingStore::kMaxArgs));
    QStringList argv;
    qsizetype bytes = 0;
    for (const QJsonValue &arg : array) {
        if (!arg.isString())
            return wrongType(sk::Command, "an array of strings (argv)");
        if (arg.toString().contains(QChar(0)))
            return invalid(QStringLiteral("field 'command' must not contain NUL characters"));
        bytes += arg.toString().toUtf8().size() + 1;
        argv.append(arg.toString());
    }
    if (argv.first().isEmpty())
        return invalid(QStringLiteral("field 'command' must start with a program name"));
    if (bytes > BuildingStore::kMaxCommandBytes)
        return invalid(QStringLiteral("field 'command' is longer than %1 bytes")
                           .arg(BuildingStore::kMaxCommandBytes));
    return argv;
}

Result<QMap<QString, QString>> parseEnv(const QJsonValue &v) {
    if (v.isNull())
        return QMap<QString, QString>();
    if (!v.isObject())
        return wrongType(sk::Env, "an object of strings");
    const QJsonObject object = v.toObject();
    if (object.size() > BuildingStore::kMaxEnv)
        return invalid(
            QStringLiteral("field 'env' has more than %1 variables").arg(BuildingStore::kMaxEnv));
    static const QRegularExpression nameRe(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,255}$"));
    QMap<QString, QString> env;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it) {
        if (!nameRe.match(it.key()).hasMatch())
            return invalid(QStringLiteral("field 'env': '%1' is not a variable name "
                                          "([A-Za-z_][A-Za-z0-9_]*)")
                               .arg(it.key().left(60)));
        if (!it.value().isString())
            return wrongType(sk::Env, "an object of strings");
        const QString value = it.value().toString();
        if (value.contains(QChar(0)))
            return invalid(
                QStringLiteral("field 'env': %1 must not contain NUL characters").arg(it.key()));
        if (value.toUtf8().size() > BuildingStore::kMaxEnvValueBytes)
            return invalid(QStringLiteral("field 'env': %1 is longer than %2 bytes")
                               .arg(it.key())
                               .arg(BuildingStore::kMaxEnvValueBytes));
        env.insert(it.key(), value);
    }
    return env;
}

Result<RestartPolicy> parseRestart(const QJsonValue &v) {
    if (!v.isString())
        return wrongType(sk::Restart, "a string");
    const QString s = v.toString();
    for (RestartPolicy p : {RestartPolicy::No, RestartPolicy::OnFailure, RestartPolicy::Always}) {
        if (s == restartPolicyName(p))
            return p;
    }
    return invalid(QStringLiteral("field 'restart' must be \"no\", \"on-failure\" or \"always\", "
                                  "got '%1'")
                       .arg(s.left(40)));
}

Status checkUrl(const QString &text) {
    const QUrl url(text, QUrl::StrictMode);
    if (text.size() > BuildingStore::kMaxUrlChars || !url.isValid() || url.host().isEmpty() ||
        (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return invalid(QStringLiteral("field 'url' must be an http or https URL with a host, at "
                                      "most %1 characters")
                           .arg(BuildingStore::kMaxUrlChars));
    return std::nullopt;
}

Status checkCwd(const QString &cwd) {
    if (!QDir::isAbsolutePath(cwd))
        return invalid(
            QStringLiteral("field 'cwd' must be an absolute path, got '%1'").arg(cwd.left(200)));
    if (!QFileInfo(cwd).isDir())
        return invalid(
            QStringLiteral("field 'cwd' is not an existing directory: %1").arg(cwd.left(200)));
    return std::nullopt;
}

// The {{NAME}}s of `text` whose secret `known` does not know, read as SecretStore::expand reads
// them (any other "{{...}}" is left alone), each named once.
QStringList unknownSecrets(const QString &text, const std::function<bool(const QString &)> &known) {
    QStringList unknown;
    const QStringList names = SecretStore::placeholderNames(text);
    for (const QString &name : names) {
        const QString shown = name.left(SecretStore::kMaxNameChars);
        if (!known(name) && !unknown.contains(shown))
            unknown.append(shown);
    }
    return unknown;
}

} // namespace

QLatin1String restartPolicyName(RestartPolicy policy) {
    namespace r = wire::shaping::restart;
    switch (policy) {
    case RestartPolicy::No:
        return r::No;
    case RestartPolicy::Always:
        return r::Always;
    case RestartPolicy::OnFailure:
        break;
    }
    return r::OnFailure;
}

QJsonObject BuildingConfig::toJson() const {
    QJsonObject envJson;
    for (auto it = env.constBegin(); it != env.constEnd(); ++it)
        envJson.insert(it.key(), it.value());
    return QJsonObject{{k::Id, id},
                       {k::Name_, name},
                       {k::Cwd, nullable(cwd)},
                       {sk::Command, QJsonArray::fromStringList(command)},
                       {sk::Env, envJson},
                       {sk::Autostart, autostart},
                       {sk::Restart, restartPolicyName(restart)},
                       {sk::Url, nullable(url)},
                       {k::AreaId, nullable(areaId)},
                       {k::AgentId, nullable(agentId)},
                       {k::CreatedAt, createdAt},
                       {sk::UpdatedAt, updatedAt}};
}

bool BuildingConfig::fromJson(const QJsonObject &json, BuildingConfig *out) {
    BuildingConfig b;
    b.id = json.value(k::Id).toString();
    b.name = json.value(k::Name_).toString();
    b.cwd = json.value(k::Cwd).toString();
    for (const QJsonValue &arg : json.value(sk::Command).toArray())
        b.command.append(arg.toString());
    const QJsonObject env = json.value(sk::Env).toObject();
    for (auto it = env.constBegin(); it != env.constEnd(); ++it)
        b.env.insert(it.key(), it.value().toString());
    b.autostart = json.value(sk::Autostart).toBool();
    if (const auto policy = parseRestart(json.value(sk::Restart)))
        b.restart = *policy;
    b.url = json.value(sk::Url).toString();
    b.areaId = json.value(k::AreaId).toString();
    b.agentId = json.value(k::AgentId).toString();
    b.createdAt = json.value(k::CreatedAt).toInteger();
    b.updatedAt = json.value(sk::UpdatedAt).toInteger();
    if (b.id.isEmpty() || b.name.isEmpty() || b.command.isEmpty() || b.command.first().isEmpty())
        return false;
    *out = b;
    return true;
}

BuildingStore::BuildingStore(Database &db, const AgentRegistry &agents, const SecretStore &secrets,
                             AreaLookup areaExists, Clock clock, QObject *parent)
    : QObject(parent)
    , m_catalog(db, kKind)
    , m_agents(agents)
    , m_secrets(secrets)
    , m_areaExists(std::move(areaExists))
    , m_clock(std::move(clock)) {
    connect(&m_catalog, &CatalogStore::stored, this, &BuildingStore::onStored);
    connect(&m_catalog, &CatalogStore::removed, this, &BuildingStore::onRemoved);
}

BuildingStore::~BuildingStore() = default;

Status BuildingStore::load() {
    m_buildings.clear();
    if (Status e = m_catalog.load())
        return e;
    QStringList orphans;
    const QList<QJsonObject> items = m_catalog.items();
    for (const QJsonObject &item : items) {
        BuildingConfig b;
        if (!BuildingConfig::fromJson(item, &b)) {
            qCWarning(lcBuildings).noquote() << "skipping an unreadable building row";
            continue;
        }
        if (!b.agentId.isEmpty() && !m_agents.find(b.agentId)) {
            orphans.append(b.id);
            continue;
        }
        m_buildings.insert(b.id, b);
    }
    if (!orphans.isEmpty()) {
        qCInfo(lcBuildings).noquote()
            << "deleting" << orphans.size() << "building(s) whose agent was deleted";
        if (Status e = m_catalog.removeAll(orphans))
            qCWarning(lcBuildings).noquote() << "could not delete them:" << e->message;
    }
    return std::nullopt;
}

QList<BuildingConfig> BuildingStore::buildings() const {
    QList<BuildingConfig> out;
    const QStringList keys = m_catalog.keys();
    for (const QString &id : keys) {
        const auto it = m_buildings.constFind(id);
        if (it != m_buildings.constEnd())
            out.append(*it);
    }
    return out;
}

const BuildingConfig *BuildingStore::find(const QString &id) const {
    const auto it = m_buildings.constFind(id);
    return it == m_buildings.constEnd() ? nullptr : &*it;
}

// `agentField` is what the refusals call the agent: the body's own field, or config import's.
Result<BuildingConfig> BuildingStore::parse(const QJsonObject &body, const BuildingConfig *base,
                                            QLatin1String agentField) const {
    static const QList<QLatin1String> allowed{k::Name_, sk::Command,   k::Cwd,
                                              sk::Env,  sk::Autostart, sk::Restart,
                                              sk::Url,  k::AreaId,     k::AgentId};
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1'; allowed: name, command, "
                                                 "cwd, env, autostart, restart, url, areaId, %2")
                                      .arg(it.key().left(60), agentField));
    }
    BuildingConfig b = base ? *base : BuildingConfig{};
    const bool creating = !base;

    if (creating && !body.contains(k::Name_))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'name' is required"));
    if (body.contains(k::Name_)) {
        if (!body.value(k::Name_).isString())
            return wrongType(k::Name_, "a string");
        b.name = body.value(k::Name_).toString().trimmed();
        if (b.name.isEmpty())
            return invalid(QStringLiteral("field 'name' must not be empty"));
        if (Status e = validateNameText(k::Name_, b.name))
            return *e;
        if (b.name.size() > kNameMax)
            return invalid(
                QStringLiteral("field 'name' is longer than %1 characters").arg(kNameMax));
    }

    if (creating && !body.contains(sk::Command))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'command' is required"));
    if (body.contains(sk::Command)) {
        const auto command = parseCommand(body.value(sk::Command));
        if (!command)
            return command.error();
        b.command = *command;
    }
    if (body.contains(sk::Env)) {
        const auto env = parseEnv(body.value(sk::Env));
        if (!env)
            return env.error();
        b.env = *env;
    }
    if (body.contains(sk::Autostart)) {
        if (!body.value(sk::Autostart).isBool())
            return wrongType(sk::Autostart, "a boolean");
        b.autostart = body.value(sk::Autostart).toBool();
    }
    if (body.contains(sk::Restart)) {
        const auto policy = parseRestart(body.value(sk::Restart));
        if (!policy)
            return policy.error();
        b.restart = *policy;
    }
    bool present = false;
    const auto url = optionalString(body, sk::Url, &present);
    if (!url)
        return url.error();
    if (present) {
        if (Status e = url->isEmpty() ? std::nullopt : checkUrl(*url))
            return *e;
        b.url = *url;
    }
    const auto areaId = optionalString(body, k::AreaId, &present);
    if (!areaId)
        return areaId.error();
    if (present)
        b.areaId = *areaId;

    // Where it runs: its own cwd, or its agent's (then `cwd` stays unset).
    bool agentGiven = false;
    const auto agentId = optionalString(body, k::AgentId, &agentGiven);
    if (!agentId)
        return agentId.error();
    if (agentGiven) {
        b.agentId = *agentId;
        if (!agentId->isEmpty())
            b.cwd.clear(); // the agent's cwd replaces the building's own
    }
    bool cwdGiven = false;
    const auto cwd = optionalString(body, k::Cwd, &cwdGiven);
    if (!cwd)
        return cwd.error();
    if (cwdGiven && !cwd->isEmpty()) {
        if (!b.agentId.isEmpty())
            return invalid(QStringLiteral("field 'cwd' must be null or absent when '%1' is set: "
                                          "the building runs in its agent's directory")
                               .arg(agentField));
        if (Status e = checkCwd(*cwd))
            return *e;
        b.cwd = QDir::cleanPath(*cwd);
    } else if (cwdGiven) {
        b.cwd.clear();
    }
    if (b.agentId.isEmpty() && b.cwd.isEmpty()) {
        if (creating && !cwdGiven)
            return Error::badRequest(
                c::MissingField,
                QStringLiteral("field 'cwd' is required unless '%1' is set").arg(agentField));
        return invalid(QStringLiteral("a building without '%1' needs a 'cwd'").arg(agentField));
    }
    return b;
}

Status BuildingStore::checkReferences(const BuildingConfig &b, const BuildingCheck &how) const {
    if (!b.agentId.isEmpty() && !m_agents.find(b.agentId))
        return Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(b.agentId));
    if (!b.areaId.isEmpty() && !(m_areaExists && m_areaExists(b.areaId)))
        return Error::notFound(c::NotFound, QStringLiteral("no area with id '%1'").arg(b.areaId));
    for (auto it = b.env.constBegin(); it != b.env.constEnd(); ++it) {
        if (how.secretKnown) {
            const QStringList unknown = unknownSecrets(it.value(), how.secretKnown);
            if (!unknown.isEmpty())
                return Error::invalid(wire::exec::code::UnknownSecret,
                                      QStringLiteral("field 'env': %1: unknown secret(s): %2; "
                                                     "define them with PUT /api/secrets/<name>")
                                          .arg(it.key(), unknown.join(QStringLiteral(", "))));
            continue;
        }
        const auto expanded = m_secrets.expand(it.value());
        if (!expanded)
            return Error{
                expanded.error().kind, expanded.error().code,
                QStringLiteral("field 'env': %1: %2").arg(it.key(), expanded.error().message)};
    }
    const QString folded = b.name.toCaseFolded();
    for (const BuildingConfig &other : std::as_const(m_buildings)) {
        if (other.id != b.id && other.name.toCaseFolded() == folded)
            return Error::conflict(
                c::Conflict,
                QStringLiteral("a building named '%1' already exists").arg(other.name));
    }
    return std::nullopt;
}

Result<BuildingConfig> BuildingStore::check(const QJsonObject &body,
                                            const BuildingCheck &how) const {
    auto parsed = parse(body, nullptr, how.agentField);
    if (!parsed)
        return parsed;
    if (Status e = checkReferences(*parsed, how))
        return *e;
    return parsed;
}

Result<BuildingConfig> BuildingStore::create(const QJsonObject &body) {
    const auto parsed = check(body);
    if (!parsed)
        return parsed.error();
    if (count() >= kMaxBuildings)
        return Error::conflict(wire::shaping::code::TooManyBuildings,
                               QStringLiteral("there are already %1 buildings (the limit); delete "
                                              "one first")
                                   .arg(count()));
    BuildingConfig b = *parsed;
    b.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    b.createdAt = m_clock.nowMs();
    b.updatedAt = b.createdAt;
    if (Status e = m_catalog.put(b.id, b.toJson()))
        return *e;
    return b;
}

Result<BuildingConfig> BuildingStore::patch(const QString &id, const QJsonObject &body) {
    const BuildingConfig *current = find(id);
    if (!current)
        return Error::notFound(c::NotFound, QStringLiteral("no building with id '%1'").arg(id));
    const auto parsed = parse(body, current);
    if (!parsed)
        return parsed.error();
    if (Status e = checkReferences(*parsed))
        return *e;
    BuildingConfig b = *parsed;
    b.updatedAt = m_clock.nowMs();
    if (Status e = m_catalog.put(b.id, b.toJson()))
        return *e;
    return b;
}

Status BuildingStore::remove(const QString &id) {
    if (!find(id))
        return Error::notFound(c::NotFound, QStringLiteral("no building with id '%1'").arg(id));
    return m_catalog.remove(id);
}

void BuildingStore::forgetArea(const QString &areaId) {
    for (const BuildingConfig &b : buildings()) {
        if (b.areaId != areaId)
            continue;
        BuildingConfig changed = b;
        changed.areaId.clear();
        changed.updatedAt = m_clock.nowMs();
        if (Status e = m_catalog.put(changed.id, changed.toJson()))
            qCWarning(lcBuildings).noquote()
                << "could not clear the deleted area of building" << b.id << e->message;
    }
}

void BuildingStore::onStored(const QString &key, const QJsonObject &item, bool created) {
    BuildingConfig b;
    if (!BuildingConfig::fromJson(item, &b) || b.id != key)
        return;
    m_buildings.insert(key, b);
    if (created)
        Q_EMIT buildingCreated(b);
    else
        Q_EMIT buildingChanged(b);
}

void BuildingStore::onRemoved(const QString &key, const QJsonObject &) {
    const BuildingConfig b = m_buildings.take(key);
    if (!b.id.isEmpty())
        Q_EMIT buildingRemoved(b);
}

} // namespace flotilla
