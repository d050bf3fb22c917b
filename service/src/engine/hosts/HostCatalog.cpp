#include "hosts/HostCatalog.h"

#include "domain/AgentValidation.h"
#include "protocol/HostNames.h"
#include "storage/CatalogStore.h"

#include <QRegularExpression>

namespace flotilla {

namespace k = wire::host::key;
namespace c = wire::code;

namespace {
constexpr int kPathMax = 4096;
constexpr int kMaxAgentsLimit = 1000;

QString text(const QJsonValue &v) {
    return v.isString() ? v.toString() : QString();
}

Error invalid(const QString &message) {
    return Error::invalid(c::InvalidValue, message);
}

// user@host[:port] or an alias: letters, digits, ".", "_", "-" (no option-like "-x", no spaces
// or shell characters: it is one argv element, but a readable one).
Result<HostConfig> parseSsh(HostConfig h, const QString &ssh) {
    static const QRegularExpression re(QStringLiteral(
        "^(?:([A-Za-z0-9._][A-Za-z0-9._-]{0,63})@)?([A-Za-z0-9._][A-Za-z0-9._-]{0,252})"
        "(?::([0-9]{1,5}))?$"));
    const auto m = re.match(ssh);
    if (!m.hasMatch())
        return invalid(QStringLiteral("field 'ssh' must be user@host[:port] or an alias of your "
                                      "ssh config, got '%1'")
                           .arg(ssh.left(100)));
    h.ssh = ssh;
    h.port = 0;
    if (!m.captured(3).isEmpty()) {
        h.port = m.captured(3).toInt();
        if (h.port < 1 || h.port > 65535)
            return invalid(QStringLiteral("the port in field 'ssh' must be 1-65535"));
    }
    h.destination =
        m.captured(1).isEmpty() ? m.captured(2) : m.captured(1) + QLatin1Char('@') + m.captured(2);
    return h;
}

// claudeBin, codexBin: null clears; an absolute path or a bare name on that host's PATH.
Status parseBin(const QJsonObject &body, QLatin1String key, QString &out) {
    const QJsonValue v = body.value(key);
    if (v.isUndefined())
        return std::nullopt;
    if (v.isNull()) {
        out.clear();
        return std::nullopt;
    }
    if (!v.isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be a string or null").arg(key));
    const QString s = v.toString();
    const bool control =
        std::any_of(s.begin(), s.end(), [](QChar ch) { return ch.unicode() < 0x20; });
    if (s.isEmpty() || s.size() > kPathMax || control || s.startsWith(QLatin1Char('-')) ||
        (!s.startsWith(QLatin1Char('/')) && s.contains(QLatin1Char('/'))))
        return invalid(QStringLiteral("field '%1' must be an absolute path or a program name on "
                                      "that host's PATH")
                           .arg(key));
    out = s;
    return std::nullopt;
}

Status parseMaxAgents(const QJsonObject &body, int &out) {
    const QJsonValue v = body.value(k::MaxAgents);
    if (v.isUndefined())
        return std::nullopt;
    if (v.isNull()) {
        out = 0;
        return std::nullopt;
    }
    if (!v.isDouble() || v.toDouble() != double(v.toInt()))
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field 'maxAgents' must be an integer or null"));
    if (v.toInt() < 1 || v.toInt() > kMaxAgentsLimit)
        return invalid(QStringLiteral("field 'maxAgents' must be 1-%1").arg(kMaxAgentsLimit));
    out = v.toInt();
    return std::nullopt;
}

Status rejectUnknown(const QJsonObject &body, const QStringList &allowed) {
    QStringList unknown;
    for (auto it = body.begin(); it != body.end(); ++it) {
        if (!allowed.contains(it.key()))
            unknown << it.key();
    }
    if (unknown.isEmpty())
        return std::nullopt;
    return Error::invalid(
        c::UnknownField,
        QStringLiteral("unknown or read-only field(s): %1; allowed: %2")
            .arg(unknown.join(QStringLiteral(", ")), allowed.join(QStringLiteral(", "))));
}

Result<HostConfig> applyFields(HostConfig h, const QJsonObject &body) {
    if (body.contains(k::Ssh)) {
        if (!body.value(k::Ssh).isString())
            return Error::badRequest(c::WrongType, QStringLiteral("field 'ssh' must be a string"));
        auto parsed = parseSsh(h, body.value(k::Ssh).toString());
        if (!parsed)
            return parsed.error();
        h = *parsed;
    }
    if (Status e = parseBin(body, k::ClaudeBin, h.claudeBin))
        return *e;
    if (Status e = parseBin(body, k::CodexBin, h.codexBin))
        return *e;
    if (Status e = parseMaxAgents(body, h.maxAgents))
        return *e;
    return h;
}
} // namespace

HostConfig HostConfig::fromJson(const QJsonObject &o) {
    HostConfig h;
    h.name = text(o.value(k::Name_));
    auto parsed = parseSsh(h, text(o.value(k::Ssh)));
    if (parsed)
        h = *parsed;
    h.claudeBin = text(o.value(k::ClaudeBin));
    h.codexBin = text(o.value(k::CodexBin));
    h.maxAgents = o.value(k::MaxAgents).toInt();
    return h;
}

QJsonObject HostConfig::toJson() const {
    const auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    return QJsonObject{{k::Name_, name},
                       {k::Ssh, ssh},
                       {k::ClaudeBin, orNull(claudeBin)},
                       {k::CodexBin, orNull(codexBin)},
                       {k::MaxAgents, maxAgents > 0 ? QJsonValue(maxAgents) : QJsonValue()}};
}

QString HostConfig::program(const QString &provider) const {
    const QString &bin = provider == k::Codex ? codexBin : claudeBin;
    return bin.isEmpty() ? provider : bin;
}

HostCatalog::HostCatalog(Database &db, QObject *parent)
    : QObject(parent)
    , m_store(std::make_unique<CatalogStore>(db, QStringLiteral("hosts"))) {
}

HostCatalog::~HostCatalog() = default;

Status HostCatalog::load() {
    return m_store->load();
}

QList<HostConfig> HostCatalog::hosts() const {
    QList<HostConfig> out;
    for (const QJsonObject &o : m_store->items())
        out << HostConfig::fromJson(o);
    return out;
}

std::optional<HostConfig> HostCatalog::find(const QString &name) const {
    const QJsonObject *o = m_store->find(name);
    if (!o)
        return std::nullopt;
    return HostConfig::fromJson(*o);
}

Result<HostConfig> HostCatalog::create(const QJsonObject &body) {
    if (Status e = rejectUnknown(body, {k::Name_, k::Ssh, k::ClaudeBin, k::CodexBin, k::MaxAgents}))
        return *e;
    for (QLatin1String required : {k::Name_, k::Ssh}) {
        if (!body.contains(required))
            return Error::badRequest(c::MissingField,
                                     QStringLiteral("field '%1' is required").arg(required));
    }
    if (!body.value(k::Name_).isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'name' must be a string"));
    HostConfig h;
    h.name = body.value(k::Name_).toString();
    if (!isSlug(h.name))
        return invalid(QStringLiteral("field 'name' must match [a-z][a-z0-9-]{0,39}, got '%1'")
                           .arg(h.name.left(60)));
    if (h.name == wire::host::Local || m_store->find(h.name))
        return Error::conflict(c::Conflict,
                               QStringLiteral("a host named '%1' already exists").arg(h.name));
    auto made = applyFields(h, body);
    if (!made)
        return made.error();
    if (Status e = m_store->add(made->name, made->toJson(), kMaxHosts, QStringLiteral("hosts")))
        return *e;
    Q_EMIT hostStored(*made, true);
    return *made;
}

Result<HostConfig> HostCatalog::patch(const QString &name, const QJsonObject &body) {
    if (name == wire::host::Local)
        return invalid(QStringLiteral("the local host cannot be changed"));
    const auto current = find(name);
    if (!current)
        return Error::notFound(wire::host::code::UnknownHost,
                               QStringLiteral("no host named '%1'").arg(name));
    if (Status e = rejectUnknown(body, {k::Ssh, k::ClaudeBin, k::CodexBin, k::MaxAgents}))
        return *e;
    auto changed = applyFields(*current, body);
    if (!changed)
        return changed.error();
    if (Status e = m_store->put(name, changed->toJson()))
        return *e;
    Q_EMIT hostStored(*changed, false);
    return *changed;
}

Status HostCatalog::remove(const QString &name) {
    if (!m_store->find(name))
        return Error::notFound(wire::host::code::UnknownHost,
                               QStringLiteral("no host named '%1'").arg(name));
    if (Status e = m_store->remove(name))
        return e;
    Q_EMIT hostRemoved(name);
    return std::nullopt;
}

} // namespace flotilla
