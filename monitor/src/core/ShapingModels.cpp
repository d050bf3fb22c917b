#include "core/ShapingModels.h"

#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"

#include <QColor>
#include <QJsonArray>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace st = ::flotilla::wire::shaping::state;

namespace {
QString firstLine(const QString &s, qsizetype max = 120) {
    QString line = s.section(QLatin1Char('\n'), 0, 0);
    if (line.size() > max)
        line = line.left(max - 1) + QChar(0x2026);
    return line;
}

QString scopeText(const QJsonObject &scope,
                  const std::function<QString(const QString &)> &agentName) {
    if (scope.contains(k::AgentId)) {
        const QString id = scope.value(k::AgentId).toString();
        const QString name = agentName ? agentName(id) : QString();
        return ShapingListModel::tr("agent %1").arg(name.isEmpty() ? id : name);
    }
    if (scope.contains(k::Class))
        return ShapingListModel::tr("class %1").arg(scope.value(k::Class).toString());
    return ShapingListModel::tr("everyone");
}

QString buildingText(const QJsonObject &b) {
    QString state = b.value(sk::State).toString();
    if (b.value(sk::Pid).isDouble())
        state += ShapingListModel::tr(", pid %1").arg(b.value(sk::Pid).toInteger());
    if (b.value(sk::ExitCode).isDouble() && state != st::Running)
        state += ShapingListModel::tr(", exit %1").arg(b.value(sk::ExitCode).toInt());
    const int restarts = b.value(sk::Restarts).toInt();
    if (restarts > 0)
        state += ShapingListModel::tr(", %n restart(s)", nullptr, restarts);
    return b.value(k::Name_).toString() + QStringLiteral(" [") + state + u']';
}
} // namespace

QString idKeyOf(ShapingKind kind) {
    return kind == ShapingKind::Classes || kind == ShapingKind::Skills ? QString(sk::Slug)
                                                                       : QString(k::Id);
}

QString collectionPath(ShapingKind kind) {
    switch (kind) {
    case ShapingKind::Classes:
        return QStringLiteral("/api/classes");
    case ShapingKind::Skills:
        return QStringLiteral("/api/skills");
    case ShapingKind::Prompts:
        return QStringLiteral("/api/prompts");
    case ShapingKind::Hooks:
        return QStringLiteral("/api/hooks");
    case ShapingKind::Buildings:
        return QStringLiteral("/api/buildings");
    }
    return {};
}

ShapingListModel::ShapingListModel(ShapingKind kind, QObject *parent)
    : JsonListModel(idKeyOf(kind), 10000, parent)
    , m_kind(kind) {
}

QVariant ShapingListModel::data(const QModelIndex &index, int role) const {
    if (role == Qt::ForegroundRole) {
        const QJsonObject o = item(index.row());
        const bool bad = (m_kind == ShapingKind::Hooks && o.value(sk::LastRun).isObject() &&
                          runFailed(o.value(sk::LastRun).toObject())) ||
                         (m_kind == ShapingKind::Buildings && o.value(sk::State) == st::Crashed);
        return bad ? QVariant(QColor(0xb0, 0x00, 0x20)) : QVariant();
    }
    return JsonListModel::data(index, role);
}

QString ShapingListModel::summary(const QJsonObject &o) const {
    QString name = o.value(k::Name_).toString();
    switch (m_kind) {
    case ShapingKind::Classes: {
        const QString slug = o.value(sk::Slug).toString();
        QString line = name.isEmpty() || name == slug ? slug : tr("%1 (%2)").arg(name, slug);
        if (o.value(sk::Builtin).toBool())
            line += tr(" - built-in");
        return line;
    }
    case ShapingKind::Skills: {
        QString line = o.value(sk::Slug).toString() + QStringLiteral(": ") +
                       firstLine(o.value(sk::Description).toString(), 80);
        if (!o.value(sk::Enabled).toBool(true))
            line += tr(" (disabled)");
        return line;
    }
    case ShapingKind::Prompts:
        return tr("%1 - for %2").arg(name, scopeText(o.value(sk::Scope).toObject(), m_agentName));
    case ShapingKind::Hooks: {
        QString line = tr("%1 - on %2").arg(name, o.value(sk::Event).toString());
        if (!o.value(sk::Enabled).toBool(true))
            line += tr(" (disabled)");
        const QJsonObject last = o.value(sk::LastRun).toObject();
        if (!last.isEmpty())
            line += tr(" - last run: %1").arg(runOutcome(last));
        return line;
    }
    case ShapingKind::Buildings:
        return buildingText(o);
    }
    return name;
}

QList<QJsonObject> itemsOf(const QJsonDocument &body) {
    QJsonArray array = body.array();
    if (body.isObject()) {
        const QJsonObject o = body.object();
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.value().isArray()) {
                array = it.value().toArray();
                break;
            }
        }
    }
    QList<QJsonObject> out;
    out.reserve(array.size());
    for (const QJsonValue &v : std::as_const(array))
        out << v.toObject();
    return out;
}

bool runFailed(const QJsonObject &run) {
    if (run.value(sk::Failed).isBool())
        return run.value(sk::Failed).toBool();
    return run.value(sk::TimedOut).toBool() || !run.value(sk::Error).toString().isEmpty() ||
           !run.value(sk::Signal).isNull() ||
           (run.value(sk::ExitCode).isDouble() && run.value(sk::ExitCode).toInt() != 0);
}

QString runOutcome(const QJsonObject &run) {
    const qint64 ms = run.value(sk::DurationMs).toInteger();
    if (run.value(sk::TimedOut).toBool())
        return ShapingListModel::tr("timed out after %1 ms").arg(ms);
    const QString error = run.value(sk::Error).toString();
    if (!error.isEmpty())
        return ShapingListModel::tr("failed: %1").arg(firstLine(error, 80));
    if (run.value(sk::ExitCode).isDouble())
        return ShapingListModel::tr("exit %1 in %2 ms")
            .arg(run.value(sk::ExitCode).toInt())
            .arg(ms);
    if (!run.value(sk::Signal).isNull() && !run.value(sk::Signal).isUndefined())
        return ShapingListModel::tr("killed by signal %1")
            .arg(run.value(sk::Signal).toVariant().toString());
    return ShapingListModel::tr("ended in %1 ms").arg(ms);
}

QString logText(const QJsonDocument &body) {
    const QJsonObject o = body.object();
    if (o.value(sk::Text).isString())
        return o.value(sk::Text).toString();
    const QJsonArray lines = body.isArray() ? body.array() : o.value(sk::Lines).toArray();
    QString out;
    for (const QJsonValue &v : lines) {
        QString line = v.isString() ? v.toString() : v.toObject().value(sk::Text).toString();
        out += line;
        if (!line.endsWith(QLatin1Char('\n')))
            out += QLatin1Char('\n');
    }
    return out;
}

} // namespace flotilla::monitor
