#include "worktrees/WorktreeRequests.h"

#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace wk = wire::worktree::key;
namespace wst = wire::worktree::strategy;
namespace rl = reviewlimits;

namespace {

Status onlyFields(const QJsonObject &body, const QStringList &allowed, const QString &where) {
    for (auto it = body.constBegin(); it != body.constEnd(); ++it) {
        if (!allowed.contains(it.key()))
            return Error::invalid(c::UnknownField,
                                  QStringLiteral("unknown field '%1%2'; allowed: %3")
                                      .arg(where, it.key(), allowed.join(QStringLiteral(", "))));
    }
    return std::nullopt;
}

// An optional string of at most `max` characters; absent or null: empty.
Result<QString> text(const QJsonObject &o, QLatin1String key, const QString &where, int max) {
    const QJsonValue v = o.value(key);
    if (v.isUndefined() || v.isNull())
        return QString();
    if (!v.isString())
        return Error::badRequest(c::WrongType,
                                 QStringLiteral("field '%1%2' must be a string").arg(where, key));
    if (v.toString().size() > max)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field '%1%2' is longer than %3 characters").arg(where, key).arg(max));
    return v.toString();
}

} // namespace

Status checkRelativePath(const QString &path, const QString &field) {
    const QStringList parts = path.split(QLatin1Char('/'));
    if (path.isEmpty() || path.size() > rl::kMaxPathChars || path.startsWith(QLatin1Char('/')) ||
        parts.contains(QStringLiteral("..")) || path.contains(QChar(0)))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("'%1' must be a path inside the worktree (relative, "
                                             "without '..', up to %2 characters)")
                                  .arg(field)
                                  .arg(rl::kMaxPathChars));
    return std::nullopt;
}

Result<ReviewRequest> parseReview(const QJsonObject &body) {
    if (Status e = onlyFields(body, {wk::Comments, k::Message}, QString()))
        return *e;
    ReviewRequest r;
    const auto message = text(body, k::Message, QString(), rl::kMaxMessageChars);
    if (!message)
        return message.error();
    r.message = message->trimmed();
    if (!body.contains(wk::Comments))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'comments' is required"));
    if (!body.value(wk::Comments).isArray())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'comments' must be an array"));
    const QJsonArray list = body.value(wk::Comments).toArray();
    if (list.size() > rl::kMaxComments)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("at most %1 comments per review").arg(rl::kMaxComments));
    if (list.isEmpty() && r.message.isEmpty())
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("a review needs comments or a message"));
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("comments[%1].").arg(i);
        if (!list.at(i).isObject())
            return Error::badRequest(c::WrongType,
                                     QStringLiteral("'comments[%1]' must be an object").arg(i));
        const QJsonObject o = list.at(i).toObject();
        if (Status e = onlyFields(o, {wk::Path, wk::Line, wk::Body}, where))
            return *e;
        for (QLatin1String key : {wk::Path, wk::Line, wk::Body}) {
            if (!o.contains(key))
                return Error::badRequest(
                    c::MissingField, QStringLiteral("field '%1%2' is required").arg(where, key));
        }
        ReviewComment comment;
        const auto path = text(o, wk::Path, where, rl::kMaxPathChars);
        if (!path)
            return path.error();
        comment.path = *path;
        if (Status e = checkRelativePath(comment.path, where + QString(wk::Path)))
            return *e;
        const QJsonValue line = o.value(wk::Line);
        if (!line.isDouble() || line.toDouble() != double(line.toInt()))
            return Error::badRequest(
                c::WrongType, QStringLiteral("field '%1line' must be an integer").arg(where));
        comment.line = line.toInt();
        if (comment.line < 1)
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field '%1line' must be 1 or more").arg(where));
        const auto commentBody = text(o, wk::Body, where, rl::kMaxBodyChars);
        if (!commentBody)
            return commentBody.error();
        comment.body = commentBody->trimmed();
        if (comment.body.isEmpty())
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("field '%1body' must not be empty").arg(where));
        r.comments.append(comment);
    }
    return r;
}

Result<MergeOptions> parseMerge(const QJsonObject &body) {
    if (Status e = onlyFields(body, {wk::Strategy, wk::Target, k::Message}, QString()))
        return *e;
    if (!body.contains(wk::Strategy))
        return Error::badRequest(c::MissingField, QStringLiteral("field 'strategy' is required"));
    MergeOptions m;
    const auto strategy = text(body, wk::Strategy, QString(), 20);
    if (!strategy)
        return strategy.error();
    m.strategy = *strategy;
    if (m.strategy != wst::Merge && m.strategy != wst::Squash && m.strategy != wst::Rebase)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'strategy' must be merge, squash or rebase, "
                                             "got '%1'")
                                  .arg(m.strategy));
    const auto target = text(body, wk::Target, QString(), 200);
    if (!target)
        return target.error();
    m.target = target->trimmed();
    if (m.target.startsWith(QLatin1Char('-')))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'target' must be a branch name"));
    const auto message = text(body, k::Message, QString(), rl::kMaxMessageChars);
    if (!message)
        return message.error();
    m.message = message->trimmed();
    return m;
}

QStringList readLineContext(const QString &root, const QString &path, int line) {
    const QString canonicalRoot = QFileInfo(root).canonicalFilePath();
    const QString file = QFileInfo(QDir(root).filePath(path)).canonicalFilePath();
    if (file.isEmpty() || !file.startsWith(canonicalRoot + QLatin1Char('/')))
        return {QStringLiteral("(%1 is not in the worktree now)").arg(path)};
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {QStringLiteral("(%1 cannot be read: %2)").arg(path, f.errorString())};
    QStringList out;
    const int first = qMax(1, line - rl::kContextLines);
    const int last = line + rl::kContextLines;
    int n = 0;
    while (n < last && !f.atEnd()) {
        // Lines are read one by one and only up to the last one quoted.
        const QByteArray raw = f.readLine(64 * 1024);
        ++n;
        if (n < first)
            continue;
        QString t = QString::fromUtf8(raw);
        while (t.endsWith(QLatin1Char('\n')) || t.endsWith(QLatin1Char('\r')))
            t.chop(1);
        if (t.size() > rl::kMaxQuotedLineChars)
            t = t.left(rl::kMaxQuotedLineChars) + QStringLiteral(" ...");
        out << QStringLiteral("%1 %2 | %3")
                   .arg(n == line ? QStringLiteral(">") : QStringLiteral(" "))
                   .arg(n, 5)
                   .arg(t);
    }
    if (n < line)
        out << QStringLiteral("(%1 has %2 line(s) now)").arg(path).arg(n);
    return out;
}

QString composeReview(const ReviewRequest &review, const QString &branch,
                      const LineContext &context) {
    QString text = QStringLiteral("[Review] The user reviewed your changes");
    if (!branch.isEmpty())
        text += QStringLiteral(" on branch %1").arg(branch);
    text += review.comments.isEmpty()
                ? QStringLiteral(".\n")
                : QStringLiteral(" and left %1 comment(s); address each of them.\n")
                      .arg(review.comments.size());
    if (!review.message.isEmpty())
        text += QLatin1Char('\n') + review.message + QLatin1Char('\n');
    for (qsizetype i = 0; i < review.comments.size(); ++i) {
        const ReviewComment &c = review.comments.at(i);
        text += QStringLiteral("\n%1. %2, line %3:\n").arg(i + 1).arg(c.path).arg(c.line);
        for (const QString &quoted : context(c.path, c.line))
            text += QStringLiteral("    ") + quoted + QLatin1Char('\n');
        text += QStringLiteral("   Comment: ") + c.body + QLatin1Char('\n');
    }
    return text;
}

} // namespace flotilla
