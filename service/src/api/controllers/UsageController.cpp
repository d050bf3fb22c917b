#include "controllers/UsageController.h"

#include "http/HttpServer.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"
#include "usage/UsageService.h"

#include <QDate>
#include <QRegularExpression>

namespace flotilla {

namespace c = wire::code;
namespace uk = wire::usage::key;
namespace gb = wire::usage::groupby;

namespace {
// `from` / `to`: epoch milliseconds, or a local date YYYY-MM-DD meaning that whole day (`from`
// its first moment, `to` up to the next day's first). Absent: open.
Result<qint64> timeQuery(const ApiRequest &r, QLatin1String key, bool isEnd, qint64 open) {
    if (!r.hasQuery(key))
        return open;
    const QString v = r.queryValue(key).trimmed();
    static const QRegularExpression digits(QStringLiteral("^[0-9]{1,16}$"));
    if (digits.match(v).hasMatch())
        return v.toLongLong();
    const QDate date = QDate::fromString(v, Qt::ISODate);
    if (v.size() == 10 && date.isValid()) {
        const qint64 start =
            UsageStore::dayStart(QDateTime(date, QTime(12, 0)).toMSecsSinceEpoch());
        return isEnd ? UsageStore::nextDayStart(start) : start;
    }
    return Error::badRequest(c::WrongType,
                             QStringLiteral("query parameter '%1' must be epoch milliseconds or a "
                                            "date YYYY-MM-DD, got '%2'")
                                 .arg(key, v.left(40)));
}
} // namespace

UsageController::UsageController(UsageService &usage)
    : m_usage(usage) {
}

void UsageController::registerRoutes(HttpServer &http) {
    http.route(Method::Get, QStringLiteral("/api/usage"),
               [this](const ApiRequest &r) { return report(r); });
}

// GET /api/usage?groupBy=agent|boss|day&from=&to= -> 200 {groupBy, from, to, total, groups}
// | 400 | 422
Reply UsageController::report(const ApiRequest &r) {
    const QString groupBy =
        r.hasQuery(uk::GroupBy) ? r.queryValue(uk::GroupBy) : QString(gb::Agent);
    if (groupBy != gb::Agent && groupBy != gb::Boss && groupBy != gb::Day)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("query parameter 'groupBy' must be agent, boss or day, got '%1'")
                .arg(groupBy.left(40)));
    API_TRY(from, timeQuery(r, uk::From, false, UsageStore::kBeginning));
    API_TRY(to, timeQuery(r, uk::To, true, UsageStore::kEnd));
    if (from > to)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("query parameter 'from' is after 'to'"));
    API_TRY(totals, m_usage.report(groupBy, from, to));
    return Reply::json(totals);
}

} // namespace flotilla
