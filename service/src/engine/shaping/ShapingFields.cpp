#include "shaping/ShapingFields.h"

#include "domain/AgentValidation.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

#include <QJsonArray>

namespace flotilla::shaping {

namespace c = wire::code;

Status rejectUnknown(const QJsonObject &body, const QStringList &allowed) {
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1'; allowed: %2")
                                      .arg(it.key().left(60), allowed.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

Result<QString> slug(const QJsonObject &body) {
    if (!body.contains(wire::shaping::key::Slug))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'slug' is required"));
    if (!body.value(wire::shaping::key::Slug).isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'slug' must be a string"));
    const QString value = body.value(wire::shaping::key::Slug).toString();
    if (!isSlug(value))
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'slug' must match [a-z][a-z0-9-]{0,39}, got '%1'")
                .arg(value.left(60)));
    return value;
}

Result<std::optional<QString>> text(const QJsonObject &body, QLatin1String key, int maxBytes,
                                    bool nullable, bool nonEmpty) {
    const QJsonValue v = body.value(key);
    if (v.isUndefined())
        return std::optional<QString>();
    if (v.isNull() && nullable)
        return std::optional<QString>(QString());
    if (!v.isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be a string%2")
                                     .arg(key, nullable ? QStringLiteral(" or null") : QString()));
    const QString value = v.toString();
    if (value.toUtf8().size() > maxBytes)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field '%1' is longer than %2 bytes").arg(key).arg(maxBytes));
    if (nonEmpty && value.trimmed().isEmpty())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field '%1' must not be empty").arg(key));
    return std::optional<QString>(value);
}

Result<std::optional<std::optional<QStringList>>> toolList(const QJsonObject &body,
                                                           QLatin1String key) {
    using Out = std::optional<std::optional<QStringList>>;
    const QJsonValue v = body.value(key);
    if (v.isUndefined())
        return Out();
    if (v.isNull())
        return Out(std::optional<QStringList>());
    if (!v.isArray())
        return Error::badRequest(
            c::WrongType,
            QStringLiteral("field '%1' must be an array of tool names or null").arg(key));
    const QJsonArray items = v.toArray();
    constexpr int kMaxTools = 100;
    constexpr int kMaxTool = 200;
    if (items.size() > kMaxTools)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field '%1' has more than %2 tools").arg(key).arg(kMaxTools));
    QStringList tools;
    for (const QJsonValue &item : items) {
        const QString tool = item.toString().trimmed();
        if (!item.isString())
            return Error::badRequest(
                c::WrongType, QStringLiteral("field '%1' must be an array of strings").arg(key));
        if (tool.isEmpty() || tool.size() > kMaxTool || tool.contains(QLatin1Char('\n')))
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("field '%1' holds an empty, multi-line or over-long tool name")
                    .arg(key));
        tools.append(tool);
    }
    return Out(std::optional<QStringList>(tools));
}

Result<std::optional<bool>> boolean(const QJsonObject &body, QLatin1String key) {
    const QJsonValue v = body.value(key);
    if (v.isUndefined())
        return std::optional<bool>();
    if (!v.isBool())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1' must be true or false").arg(key));
    return std::optional<bool>(v.toBool());
}

QJsonValue toolsJson(const std::optional<QStringList> &tools) {
    return tools ? QJsonValue(QJsonArray::fromStringList(*tools)) : QJsonValue();
}

std::optional<QStringList> toolsFromJson(const QJsonValue &value) {
    if (!value.isArray())
        return std::nullopt;
    QStringList out;
    const QJsonArray items = value.toArray();
    for (const QJsonValue &item : items)
        out.append(item.toString());
    return out;
}

} // namespace flotilla::shaping
