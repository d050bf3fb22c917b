#pragma once
// How the shaping routes read their JSON bodies: the same refusals (400 wrong_type, 422
// unknown_field / invalid_value, with the field's name) for classes, skills and their config
// import, so a client learns one set of rules.

#include "base/Error.h"

#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace flotilla::shaping {

// 422 unknown_field naming the first key of `body` not in `allowed`.
Status rejectUnknown(const QJsonObject &body, const QStringList &allowed);
// The `slug` of a POST body: required, a string, [a-z][a-z0-9-]{0,39} (isSlug).
Result<QString> slug(const QJsonObject &body);
// Absent -> nullopt. A string (null -> "" when `nullable`) of at most `maxBytes` UTF-8 bytes,
// and non-empty after trimming when `required` is set.
Result<std::optional<QString>> text(const QJsonObject &body, QLatin1String key, int maxBytes,
                                    bool nullable = false, bool nonEmpty = false);
// Absent -> nullopt; null -> an empty optional inside (the field cleared); else a list of tool
// names (Claude's permission-rule syntax, e.g. "Bash(git:*)"), each 1..200 characters, at most
// 100.
Result<std::optional<std::optional<QStringList>>> toolList(const QJsonObject &body,
                                                           QLatin1String key);
// Absent -> nullopt; else a boolean.
Result<std::optional<bool>> boolean(const QJsonObject &body, QLatin1String key);

QJsonValue toolsJson(const std::optional<QStringList> &tools);
std::optional<QStringList> toolsFromJson(const QJsonValue &value);

} // namespace flotilla::shaping
