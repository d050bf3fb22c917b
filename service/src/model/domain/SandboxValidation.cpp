#include "domain/SandboxValidation.h"

#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"

#include <QDir>
#include <QJsonArray>
#include <QRegularExpression>

namespace flotilla {

namespace sbk = wire::sandbox::key;
namespace sbc = wire::sandbox::code;

namespace {

Error invalid(const QString &message) {
    return Error::invalid(sbc::InvalidSandbox, message);
}

Result<QStringList> stringList(const QJsonObject &o, QLatin1String key) {
    const QJsonValue v = o.value(key);
    if (v.isUndefined() || v.isNull())
        return QStringList();
    if (!v.isArray())
        return Error::badRequest(
            wire::code::WrongType,
            QStringLiteral("field 'sandbox.%1' must be an array of strings").arg(key));
    const QJsonArray array = v.toArray();
    if (array.size() > limits::kSandboxPathsMax)
        return invalid(QStringLiteral("field 'sandbox.%1' has more than %2 entries")
                           .arg(key)
                           .arg(limits::kSandboxPathsMax));
    QStringList out;
    for (const QJsonValue &item : array) {
        if (!item.isString())
            return Error::badRequest(
                wire::code::WrongType,
                QStringLiteral("field 'sandbox.%1' must be an array of strings").arg(key));
        out.append(item.toString());
    }
    return out;
}

// Absolute, cleaned, not the root: the sandbox binds it at the same place.
Result<QStringList> paths(const QJsonObject &o, QLatin1String key) {
    auto list = stringList(o, key);
    if (!list)
        return list.error();
    QStringList out;
    for (const QString &raw : *list) {
        if (raw.isEmpty() || !QDir::isAbsolutePath(raw) || raw.contains(QChar(0)))
            return invalid(QStringLiteral("field 'sandbox.%1' needs absolute paths, got '%2'")
                               .arg(key, raw.left(200)));
        const QString clean = QDir::cleanPath(raw);
        if (clean == QLatin1String("/"))
            return invalid(QStringLiteral("field 'sandbox.%1' may not name '/'").arg(key));
        if (!out.contains(clean))
            out.append(clean);
    }
    return out;
}

} // namespace

Result<std::optional<AgentSandbox>> parseSandbox(const QJsonObject &body) {
    const QJsonValue v = body.value(sbk::Sandbox);
    if (v.isUndefined())
        return std::optional<AgentSandbox>();
    if (v.isNull())
        return std::optional<AgentSandbox>(AgentSandbox{});
    if (!v.isObject())
        return Error::badRequest(
            wire::code::WrongType,
            QStringLiteral("field 'sandbox' must be null or {mode, network?, allowHosts?, "
                           "writable?, hidden?}"));
    const QJsonObject o = v.toObject();
    const QStringList allowed{sbk::Mode,     sbk::Network, sbk::AllowHosts,
                              sbk::Writable, sbk::Hidden,  sbk::AllowUnconfined};
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(wire::code::UnknownField,
                                  QStringLiteral("unknown field 'sandbox.%1'; allowed: %2")
                                      .arg(it.key(), allowed.join(QStringLiteral(", "))));
    }
    AgentSandbox s;
    const QJsonValue mode = o.value(sbk::Mode);
    if (!mode.isString())
        return Error::badRequest(wire::code::MissingField,
                                 QStringLiteral("field 'sandbox.mode' is required: 'off' or "
                                                "'workspace'"));
    s.mode = mode.toString();
    if (s.mode != wire::sandbox::mode::Off && s.mode != wire::sandbox::mode::Workspace)
        return invalid(QStringLiteral("field 'sandbox.mode' must be 'off' or 'workspace', got '%1'")
                           .arg(s.mode.left(60)));
    const QJsonValue network = o.value(sbk::Network);
    if (!network.isUndefined() && !network.isNull() && !network.isString())
        return Error::badRequest(wire::code::WrongType,
                                 QStringLiteral("field 'sandbox.network' must be a string"));
    s.network = network.toString(QString(wire::sandbox::network::Full));
    if (s.network != wire::sandbox::network::Full && s.network != wire::sandbox::network::Allowlist)
        return invalid(
            QStringLiteral("field 'sandbox.network' must be 'full' or 'allowlist', got '%1'")
                .arg(s.network.left(60)));

    auto hosts = stringList(o, sbk::AllowHosts);
    if (!hosts)
        return hosts.error();
    static const QRegularExpression hostRe(
        QStringLiteral("^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9.-]{0,252})(:[0-9]{1,5})?$"));
    for (const QString &h : *hosts) {
        if (!hostRe.match(h).hasMatch())
            return invalid(QStringLiteral("field 'sandbox.allowHosts' needs host or host:port "
                                          "entries, got '%1'")
                               .arg(h.left(200)));
    }
    if (!hosts->isEmpty() && s.network != wire::sandbox::network::Allowlist)
        return invalid(QStringLiteral("field 'sandbox.allowHosts' needs network 'allowlist'"));
    s.allowHosts = *hosts;

    auto writable = paths(o, sbk::Writable);
    if (!writable)
        return writable.error();
    auto hidden = paths(o, sbk::Hidden);
    if (!hidden)
        return hidden.error();
    for (const QString &p : *writable) {
        if (hidden->contains(p))
            return invalid(
                QStringLiteral("'%1' is both writable and hidden in 'sandbox'").arg(p.left(200)));
    }
    s.writable = *writable;
    s.hidden = *hidden;
    const QJsonValue unconfined = o.value(sbk::AllowUnconfined);
    if (!unconfined.isUndefined() && !unconfined.isNull() && !unconfined.isBool())
        return Error::badRequest(
            wire::code::WrongType,
            QStringLiteral("field 'sandbox.allowUnconfined' must be a boolean"));
    s.allowUnconfined = unconfined.toBool();
    return std::optional<AgentSandbox>(s);
}

} // namespace flotilla
