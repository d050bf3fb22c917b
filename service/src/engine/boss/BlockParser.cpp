#include "boss/BlockParser.h"

#include "protocol/BossNames.h"
#include "protocol/HostNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WorktreeNames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

#include <optional>

namespace flotilla::boss {

namespace k = wire::key;
namespace bk = wire::boss::key;
namespace conf = wire::boss::confidence;
namespace c = wire::code;

namespace {

// "item 2: " inside arrays, nothing for a single object: the boss must find the bad entry.
QString where(int index, bool inArray) {
    return inArray ? QStringLiteral("item %1: ").arg(index + 1) : QString();
}

Error invalid(const QString &message) {
    return Error::invalid(c::InvalidValue, message);
}

// A block's JSON: an object, or (when arrays are allowed) an array of objects.
Result<QList<QJsonObject>> parseObjects(const QString &body, bool allowArray) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(body.trimmed().toUtf8(), &err);
    if (err.error != QJsonParseError::NoError)
        return Error::invalid(c::BadJson, QStringLiteral("the block is not valid JSON (%1 at "
                                                         "offset %2)")
                                              .arg(err.errorString())
                                              .arg(err.offset));
    QList<QJsonObject> items;
    if (doc.isObject()) {
        items.append(doc.object());
    } else if (doc.isArray() && allowArray) {
        const QJsonArray array = doc.array();
        for (qsizetype i = 0; i < array.size(); ++i) {
            if (!array.at(i).isObject())
                return Error::invalid(c::WrongType,
                                      QStringLiteral("item %1 is not a JSON object").arg(i + 1));
            items.append(array.at(i).toObject());
        }
    } else {
        return Error::invalid(c::WrongType, allowArray
                                                ? QStringLiteral("the block must hold a JSON "
                                                                 "object or an array of "
                                                                 "objects")
                                                : QStringLiteral("the block must hold a "
                                                                 "JSON object"));
    }
    if (items.isEmpty())
        return invalid(QStringLiteral("the block is an empty array"));
    if (items.size() > blocklimits::kMaxItems)
        return invalid(QStringLiteral("the block has %1 items; at most %2 per block")
                           .arg(items.size())
                           .arg(blocklimits::kMaxItems));
    return items;
}

// An optional string field, trimmed: absent or null -> empty; another type -> error.
Result<QString> stringField(const QJsonObject &o, QLatin1String key, const QString &prefix,
                            int maxChars) {
    const QJsonValue v = o.value(key);
    if (v.isUndefined() || v.isNull())
        return QString();
    if (!v.isString())
        return Error::invalid(c::WrongType,
                              prefix + QStringLiteral("field '%1' must be a string").arg(key));
    const QString s = v.toString().trimmed();
    if (s.size() > maxChars)
        return invalid(
            prefix +
            QStringLiteral("field '%1' is longer than %2 characters").arg(key).arg(maxChars));
    return s;
}

Result<QString> requiredString(const QJsonObject &o, QLatin1String key, const QString &prefix,
                               int maxChars) {
    if (!o.contains(key) || o.value(key).isNull())
        return Error::invalid(c::MissingField,
                              prefix + QStringLiteral("field '%1' is required").arg(key));
    auto s = stringField(o, key, prefix, maxChars);
    if (s && s->isEmpty())
        return invalid(prefix + QStringLiteral("field '%1' must not be empty").arg(key));
    return s;
}

// Models write confidence as a word or as a probability; both become the word.
Result<QString> confidenceOf(const QJsonObject &o, const QString &prefix) {
    const QJsonValue v = o.value(bk::Confidence);
    if (v.isUndefined() || v.isNull())
        return QString(conf::Medium);
    if (v.isDouble()) {
        const double p = v.toDouble();
        if (p < 0.0 || p > 1.0)
            return invalid(prefix + QStringLiteral("field 'confidence' as a number must be "
                                                   "between 0 and 1"));
        return QString(p >= 0.75 ? conf::High : p >= 0.4 ? conf::Medium : conf::Low);
    }
    const QString word = v.toString().trimmed().toLower();
    if (word == conf::High || word == conf::Medium || word == conf::Low)
        return word;
    return invalid(prefix + QStringLiteral("field 'confidence' must be high, medium or low"));
}

// agentId / agentName (at least one when `required`); the error names the item.
std::optional<Error> readTarget(const QJsonObject &o, const QString &prefix, bool required,
                                QString *id, QString *name) {
    auto i = stringField(o, k::AgentId, prefix, 200);
    if (!i)
        return i.error();
    auto n = stringField(o, k::AgentName, prefix, 200);
    if (!n)
        return n.error();
    if (required && i->isEmpty() && n->isEmpty())
        return Error::invalid(
            c::MissingField, prefix + QStringLiteral("field 'agentId' or 'agentName' is required"));
    *id = *i;
    *name = *n;
    return std::nullopt;
}

} // namespace

QList<FencedBlock> extractBlocks(const QString &text, const QStringList &tags) {
    static const QRegularExpression open(QStringLiteral("^\\s*`{3,}\\s*([A-Za-z][A-Za-z-]*)(.*)$"));
    static const QRegularExpression close(QStringLiteral("^\\s*`{3,}\\s*$"));
    QList<FencedBlock> blocks;
    const QStringList lines = text.split(QLatin1Char('\n'));
    std::optional<FencedBlock> current;
    bool inOther = false; // inside a fence we do not read: its content is not ours to parse
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (current) {
            if (close.match(line).hasMatch()) {
                blocks.append(*current);
                current.reset();
            } else {
                current->body += line + QLatin1Char('\n');
            }
            continue;
        }
        if (inOther) {
            inOther = !close.match(line).hasMatch();
            continue;
        }
        const auto m = open.match(line);
        if (!m.hasMatch()) {
            if (close.match(line).hasMatch())
                inOther = true; // an untagged fence opens
            continue;
        }
        const QString tag = m.captured(1).toLower();
        if (!tags.contains(tag)) {
            inOther = true;
            continue;
        }
        FencedBlock b;
        b.tag = tag;
        b.line = i + 1;
        QString rest = m.captured(2).trimmed();
        // "```delegation {...}```" on one line, or JSON starting on the fence line.
        if (rest.startsWith(QLatin1Char('{')) || rest.startsWith(QLatin1Char('['))) {
            if (rest.endsWith(QLatin1String("```"))) {
                while (rest.endsWith(QLatin1Char('`')))
                    rest.chop(1);
                b.body = rest;
                blocks.append(b);
                continue;
            }
            b.body = rest + QLatin1Char('\n');
        }
        current = b;
    }
    if (current) {
        current->closed = false;
        blocks.append(*current);
    }
    return blocks;
}

Result<QList<DelegationItem>> parseDelegationBlock(const QString &body) {
    const auto objects = parseObjects(body, true);
    if (!objects)
        return objects.error();
    const bool inArray = objects->size() > 1 || body.trimmed().startsWith(QLatin1Char('['));
    QList<DelegationItem> items;
    for (qsizetype i = 0; i < objects->size(); ++i) {
        const QJsonObject &o = objects->at(i);
        const QString prefix = where(int(i), inArray);
        DelegationItem d;
        if (auto e = readTarget(o, prefix, true, &d.agentId, &d.agentName))
            return *e;
        auto task = requiredString(o, bk::Task, prefix, blocklimits::kMaxTaskChars);
        if (!task)
            return task.error();
        d.task = *task;
        auto reasoning = stringField(o, bk::Reasoning, prefix, blocklimits::kMaxReasoningChars);
        if (!reasoning)
            return reasoning.error();
        d.reasoning = *reasoning;
        auto confidence = confidenceOf(o, prefix);
        if (!confidence)
            return confidence.error();
        d.confidence = *confidence;
        auto planId = stringField(o, bk::PlanId, prefix, 100);
        auto planTaskId = stringField(o, bk::PlanTaskId, prefix, 100);
        if (!planId)
            return planId.error();
        if (!planTaskId)
            return planTaskId.error();
        if (planId->isEmpty() != planTaskId->isEmpty())
            return Error::invalid(c::MissingField,
                                  prefix + QStringLiteral("fields 'planId' and 'planTaskId' go "
                                                          "together"));
        d.planId = *planId;
        d.planTaskId = *planTaskId;
        items.append(d);
    }
    return items;
}

Result<QList<QJsonObject>> parseSpawnBlock(const QString &body) {
    const auto objects = parseObjects(body, true);
    if (!objects)
        return objects.error();
    const bool inArray = objects->size() > 1 || body.trimmed().startsWith(QLatin1Char('['));
    QList<QJsonObject> specs;
    for (qsizetype i = 0; i < objects->size(); ++i) {
        const QJsonObject &o = objects->at(i);
        const QString prefix = where(int(i), inArray);
        QJsonObject spec;
        auto name = requiredString(o, k::Name_, prefix, 200);
        if (!name)
            return name.error();
        spec.insert(k::Name_, *name);
        // Type and value checks of the rest are the agent validator's (parseAgentDraft) job.
        for (QLatin1String key :
             {k::Class, k::Cwd, k::Provider, k::Model, wire::worktree::key::Worktree,
              wire::shaping::key::CustomInstructions, wire::shaping::key::Skills,
              wire::host::key::Host}) {
            if (o.contains(key) && !o.value(key).isNull())
                spec.insert(key, o.value(key));
        }
        specs.append(spec);
    }
    return specs;
}

Result<WorkPlanDraft> parseWorkPlanBlock(const QString &body) {
    const auto objects = parseObjects(body, false);
    if (!objects)
        return objects.error();
    const QJsonObject &o = objects->constFirst();
    WorkPlanDraft plan;
    auto title = requiredString(o, k::Title, QString(), blocklimits::kMaxTitleChars);
    if (!title)
        return title.error();
    plan.title = *title;
    auto description =
        stringField(o, bk::Description, QString(), blocklimits::kMaxDescriptionChars);
    if (!description)
        return description.error();
    plan.description = *description;
    if (!o.contains(bk::Tasks))
        return Error::invalid(c::MissingField, QStringLiteral("field 'tasks' is required"));
    if (!o.value(bk::Tasks).isArray())
        return Error::invalid(c::WrongType, QStringLiteral("field 'tasks' must be an array"));
    const QJsonArray tasks = o.value(bk::Tasks).toArray();
    if (tasks.isEmpty() || tasks.size() > blocklimits::kMaxPlanTasks)
        return invalid(QStringLiteral("field 'tasks' must hold 1 to %1 tasks, got %2")
                           .arg(blocklimits::kMaxPlanTasks)
                           .arg(tasks.size()));
    for (qsizetype i = 0; i < tasks.size(); ++i) {
        const QString prefix = QStringLiteral("task %1: ").arg(i + 1);
        if (!tasks.at(i).isObject())
            return Error::invalid(c::WrongType, prefix + QStringLiteral("must be a JSON object"));
        const QJsonObject t = tasks.at(i).toObject();
        PlanTaskDraft draft;
        auto text = requiredString(t, bk::Description, prefix, blocklimits::kMaxDescriptionChars);
        if (!text)
            return text.error();
        draft.description = *text;
        if (auto e = readTarget(t, prefix, false, &draft.agentId, &draft.agentName))
            return *e;
        plan.tasks.append(draft);
    }
    return plan;
}

} // namespace flotilla::boss
