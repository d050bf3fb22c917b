#include "core/UsageText.h"

#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"

#include <QCoreApplication>
#include <QStringList>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace uk = ::flotilla::wire::usage::key;

namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("UsageText", text);
}

// Dollars with enough digits that a cheap turn does not read as $0.00.
QString dollars(double usd) {
    return QStringLiteral("$") + QString::number(usd, 'f', usd >= 1.0 ? 2 : 4);
}

} // namespace

QString compactTokens(qint64 n) {
    if (n >= 1000000)
        return QString::number(double(n) / 1e6, 'f', 1) + QLatin1Char('M');
    if (n >= 1000)
        return QString::number((n + 500) / 1000) + QLatin1Char('k');
    return QString::number(n);
}

QString usageCell(const QJsonObject &agent) {
    const QJsonObject u = agent.value(uk::Usage).toObject();
    if (u.value(uk::Turns).toInteger() <= 0)
        return {};
    const qint64 tokens =
        u.value(uk::InputTokens).toInteger() + u.value(uk::OutputTokens).toInteger();
    return tr("%1 \u00b7 %2 tok")
        .arg(dollars(u.value(uk::CostUsd).toDouble()), compactTokens(tokens));
}

QString usageLine(const QJsonObject &agent) {
    const QJsonObject u = agent.value(uk::Usage).toObject();
    const qint64 turns = u.value(uk::Turns).toInteger();
    if (turns <= 0)
        return {};
    return tr("%1 turn(s) \u00b7 %2 in \u00b7 %3 out \u00b7 %4 cache read \u00b7 %5")
        .arg(turns)
        .arg(compactTokens(u.value(uk::InputTokens).toInteger()),
             compactTokens(u.value(uk::OutputTokens).toInteger()),
             compactTokens(u.value(uk::CacheReadTokens).toInteger()),
             dollars(u.value(uk::CostUsd).toDouble()));
}

QString budgetLine(const QJsonObject &agent) {
    const QJsonObject b = agent.value(uk::Budget).toObject();
    if (b.isEmpty())
        return {};
    QStringList caps;
    if (b.contains(uk::CostUsd))
        caps << dollars(b.value(uk::CostUsd).toDouble());
    if (b.contains(uk::Tokens))
        caps << tr("%1 tokens").arg(compactTokens(b.value(uk::Tokens).toInteger()));
    const QString period =
        b.value(uk::Period).toString() == QLatin1String("day") ? tr("per day") : tr("in total");
    QString line = tr("budget %1 %2").arg(caps.join(QStringLiteral(" / ")), period);
    if (agent.value(k::LastError).toString().startsWith(QLatin1String("Budget reached")))
        line += tr(" (reached)");
    return line;
}

QString processLine(const QJsonObject &agent) {
    const bool running = agent.value(k::IsProcessRunning).toBool();
    const bool hasSession = !agent.value(k::SessionId).toString().isEmpty();
    if (running || !hasSession || agent.value(k::Status).toString() != QLatin1String("idle"))
        return {};
    return tr("process released (idle): the next message resumes it");
}

} // namespace flotilla::monitor
