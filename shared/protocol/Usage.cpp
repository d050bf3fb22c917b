#include "protocol/Usage.h"

#include "protocol/UsageNames.h"

namespace flotilla {

namespace k = wire::usage::key;
namespace period = wire::usage::period;

UsageTotals &UsageTotals::operator+=(const UsageTotals &o) {
    turns += o.turns;
    inputTokens += o.inputTokens;
    outputTokens += o.outputTokens;
    cacheReadTokens += o.cacheReadTokens;
    costUsd += o.costUsd;
    return *this;
}

QJsonObject UsageTotals::toJson() const {
    return {{k::Turns, turns},
            {k::InputTokens, inputTokens},
            {k::OutputTokens, outputTokens},
            {k::CacheReadTokens, cacheReadTokens},
            {k::CostUsd, costUsd}};
}

UsageTotals UsageTotals::fromJson(const QJsonObject &json) {
    UsageTotals u;
    u.turns = json.value(k::Turns).toInteger();
    u.inputTokens = json.value(k::InputTokens).toInteger();
    u.outputTokens = json.value(k::OutputTokens).toInteger();
    u.cacheReadTokens = json.value(k::CacheReadTokens).toInteger();
    u.costUsd = json.value(k::CostUsd).toDouble();
    return u;
}

QJsonValue Budget::toJson() const {
    if (!isSet())
        return QJsonValue();
    QJsonObject o{{k::Period, perDay ? period::Day : period::Total}};
    if (costUsd > 0)
        o.insert(k::CostUsd, costUsd);
    if (tokens > 0)
        o.insert(k::Tokens, tokens);
    return o;
}

Budget Budget::fromJson(const QJsonValue &json) {
    const QJsonObject o = json.toObject();
    Budget b;
    b.costUsd = qMax(0.0, o.value(k::CostUsd).toDouble());
    b.tokens = qMax<qint64>(0, o.value(k::Tokens).toInteger());
    b.perDay = o.value(k::Period).toString() == period::Day;
    return b;
}

} // namespace flotilla
