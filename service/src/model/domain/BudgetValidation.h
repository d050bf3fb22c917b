#pragma once
// Validation of the usage fields of agent bodies (POST and PATCH /api/agents): `budget` and
// `idleTimeoutSeconds`. Each names the bad field.

#include "base/Error.h"
#include "protocol/Usage.h"

#include <QJsonObject>

#include <optional>

namespace flotilla {

namespace limits {
inline constexpr int kIdleTimeoutMax = 7 * 24 * 3600; // a week (also --idle-timeout's)
}

// Absent: nullopt; null: -1 (the service's --idle-timeout); else 0..kIdleTimeoutMax.
Result<std::optional<int>> parseIdleTimeout(const QJsonObject &body);
// Absent: nullopt; null: an unset Budget (none); else {costUsd?, tokens?, period}.
Result<std::optional<Budget>> parseBudget(const QJsonObject &body);

} // namespace flotilla
