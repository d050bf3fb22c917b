#include "domain/BudgetValidation.h"

#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"

#include <QStringList>
#include <QtNumeric>

#include <cmath>

namespace flotilla {

namespace c = wire::code;
namespace uk = wire::usage::key;
namespace period = wire::usage::period;

Result<std::optional<int>> parseIdleTimeout(const QJsonObject &body) {
    const QJsonValue v = body.value(uk::IdleTimeoutSeconds);
    if (v.isUndefined())
        return std::optional<int>();
    if (v.isNull())
        return std::optional<int>(-1);
    if (!v.isDouble())
        return Error::badRequest(
            c::WrongType, QStringLiteral("field 'idleTimeoutSeconds' must be a number or null"));
    const double d = v.toDouble();
    if (d != std::floor(d) || d < 0 || d > limits::kIdleTimeoutMax)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'idleTimeoutSeconds' must be a whole number "
                                             "of seconds from 0 (never) to %1, or null")
                                  .arg(limits::kIdleTimeoutMax));
    return std::optional<int>(int(d));
}

Result<std::optional<Budget>> parseBudget(const QJsonObject &body) {
    const QJsonValue v = body.value(uk::Budget);
    if (v.isUndefined())
        return std::optional<Budget>();
    if (v.isNull())
        return std::optional<Budget>(Budget());
    if (!v.isObject())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field 'budget' must be an object or null"));
    const QJsonObject o = v.toObject();
    QStringList unknown;
    for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
        if (it.key() != uk::CostUsd && it.key() != uk::Tokens && it.key() != uk::Period)
            unknown.append(it.key());
    }
    if (!unknown.isEmpty())
        return Error::invalid(c::UnknownField,
                              QStringLiteral("unknown field(s) in 'budget': %1; allowed: "
                                             "costUsd, tokens, period")
                                  .arg(unknown.join(QStringLiteral(", "))));
    if (!o.contains(uk::Period))
        return Error::badRequest(c::MissingField,
                                 QStringLiteral("field 'budget.period' is required"));
    if (!o.value(uk::Period).isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field 'budget.period' must be a string"));
    const QString p = o.value(uk::Period).toString();
    if (p != period::Total && p != period::Day)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'budget.period' must be 'total' or 'day', got '%1'")
                .arg(p.left(40)));
    Budget b;
    b.perDay = p == period::Day;
    const QJsonValue cost = o.value(uk::CostUsd);
    if (!cost.isUndefined() && !cost.isNull()) {
        if (!cost.isDouble())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field 'budget.costUsd' must be a number"));
        if (!(cost.toDouble() > 0) || !qIsFinite(cost.toDouble()))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field 'budget.costUsd' must be above 0"));
        b.costUsd = cost.toDouble();
    }
    const QJsonValue tokens = o.value(uk::Tokens);
    if (!tokens.isUndefined() && !tokens.isNull()) {
        if (!tokens.isDouble())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("field 'budget.tokens' must be a number"));
        const double t = tokens.toDouble();
        if (t != std::floor(t) || t < 1 || t > 1e15)
            return Error::invalid(
                c::InvalidValue,
                QStringLiteral("field 'budget.tokens' must be a whole number from 1 to 10^15"));
        b.tokens = qint64(t);
    }
    if (!b.isSet())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'budget' needs costUsd or tokens (or is null "
                                             "for no budget)"));
    return std::optional<Budget>(b);
}

} // namespace flotilla
