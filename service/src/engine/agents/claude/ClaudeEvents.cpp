#include "agents/claude/ClaudeEvents.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QtNumeric>

#include <limits>

namespace flotilla {

namespace {

using Kind = AgentEvent::Kind;

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// A count the CLI reported; nonsense (negative) counts as nothing.
qint64 tokens(const QJsonObject &u, const char *key) {
    return qMax<qint64>(0, u.value(QLatin1String(key)).toInteger());
}

// Sums that cannot overflow, whatever numbers a line carries.
qint64 saturatingAdd(qint64 a, qint64 b) {
    qint64 sum = 0;
    return qAddOverflow(a, b, &sum) ? std::numeric_limits<qint64>::max() : sum;
}

TokenUsage usageOf(const QJsonObject &u) {
    TokenUsage usage;
    usage.inputTokens = tokens(u, "input_tokens");
    usage.outputTokens = tokens(u, "output_tokens");
    // The Messages API counts cached input apart from input_tokens; the window holds all three.
    usage.contextTokens =
        saturatingAdd(saturatingAdd(usage.inputTokens, tokens(u, "cache_read_input_tokens")),
                      tokens(u, "cache_creation_input_tokens"));
    return usage;
}

// tool_result content is a string or a list of blocks ({type: text, text} among others).
QString toolResultText(const QJsonValue &content) {
    if (content.isString())
        return content.toString();
    QStringList parts;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &b : blocks) {
        const QJsonObject block = b.toObject();
        if (str(block, "type") == QLatin1String("text"))
            parts.append(str(block, "text"));
    }
    return parts.join(QLatin1Char('\n'));
}

void parseStreamEvent(const QJsonObject &line, QList<AgentEvent> &out) {
    const QJsonObject ev = line.value(QLatin1String("event")).toObject();
    if (str(ev, "type") != QLatin1String("content_block_delta"))
        return;
    const QJsonObject delta = ev.value(QLatin1String("delta")).toObject();
    if (str(delta, "type") != QLatin1String("text_delta"))
        return;
    AgentEvent e;
    e.kind = Kind::TextDelta;
    e.text = str(delta, "text");
    e.parentToolUseId = str(line, "parent_tool_use_id");
    if (!e.text.isEmpty())
        out.append(e);
}

void parseAssistant(const QJsonObject &line, QList<AgentEvent> &out) {
    const QJsonObject message = line.value(QLatin1String("message")).toObject();
    const QString parent = str(line, "parent_tool_use_id");
    const QJsonArray content = message.value(QLatin1String("content")).toArray();
    for (const QJsonValue &b : content) {
        const QJsonObject block = b.toObject();
        if (str(block, "type") != QLatin1String("tool_use"))
            continue;
        AgentEvent e;
        e.kind = Kind::ToolUse;
        e.toolUseId = str(block, "id");
        e.toolName = str(block, "name");
        e.toolInput = block.value(QLatin1String("input")).toObject();
        if (e.toolName == QLatin1String("Skill"))
            e.skill = e.toolInput.value(QLatin1String("skill")).toString();
        e.parentToolUseId = parent;
        out.append(e);
    }
    if (parent.isEmpty() && message.contains(QLatin1String("usage"))) {
        AgentEvent e;
        e.kind = Kind::Usage;
        e.usage = usageOf(message.value(QLatin1String("usage")).toObject());
        e.model = str(message, "model");
        out.append(e);
    }
}

void parseUser(const QJsonObject &line, QList<AgentEvent> &out) {
    const QJsonValue content =
        line.value(QLatin1String("message")).toObject().value(QLatin1String("content"));
    if (!content.isArray())
        return;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &b : blocks) {
        const QJsonObject block = b.toObject();
        if (str(block, "type") != QLatin1String("tool_result"))
            continue;
        AgentEvent e;
        e.kind = Kind::ToolResult;
        e.toolUseId = str(block, "tool_use_id");
        e.toolOutput = toolResultText(block.value(QLatin1String("content")));
        e.isError = block.value(QLatin1String("is_error")).toBool();
        e.parentToolUseId = str(line, "parent_tool_use_id");
        out.append(e);
    }
}

void parseResult(const QJsonObject &line, QList<AgentEvent> &out) {
    AgentEvent e;
    e.kind = Kind::TurnEnded;
    e.isError = line.value(QLatin1String("is_error")).toBool() ||
                str(line, "subtype") != QLatin1String("success");
    e.text = str(line, "result");
    if (e.text.isEmpty() && e.isError) {
        const QJsonArray errors = line.value(QLatin1String("errors")).toArray();
        QStringList parts;
        for (const QJsonValue &v : errors)
            parts.append(v.isString()
                             ? v.toString()
                             : QString::fromUtf8(
                                   QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)));
        e.text = parts.isEmpty() ? str(line, "subtype") : parts.join(QStringLiteral("; "));
        if (e.text.isEmpty()) // a result line without any detail: still say something
            e.text = QStringLiteral("Claude Code ended the turn with an error and no message");
    }
    e.sessionId = str(line, "session_id");
    const QJsonObject usage = line.value(QLatin1String("usage")).toObject();
    e.usage = usageOf(usage);
    // result's usage is the turn's; total_cost_usd is a running total of the session, restored
    // by a resumed process from the session file: ClaudeProcess turns it into the turn's.
    e.turnUsage.turns = 1;
    e.turnUsage.inputTokens =
        saturatingAdd(tokens(usage, "input_tokens"), tokens(usage, "cache_creation_input_tokens"));
    e.turnUsage.outputTokens = tokens(usage, "output_tokens");
    e.turnUsage.cacheReadTokens = tokens(usage, "cache_read_input_tokens");
    e.turnUsage.costUsd = qMax(0.0, line.value(QLatin1String("total_cost_usd")).toDouble());
    if (!qIsFinite(e.turnUsage.costUsd))
        e.turnUsage.costUsd = 0;
    const QJsonObject models = line.value(QLatin1String("modelUsage")).toObject();
    for (auto it = models.constBegin(); it != models.constEnd(); ++it)
        e.usage.contextWindow =
            qMax(e.usage.contextWindow,
                 it.value().toObject().value(QLatin1String("contextWindow")).toInteger());
    out.append(e);
}

void parseSystem(const QJsonObject &line, QList<AgentEvent> &out) {
    const QString subtype = str(line, "subtype");
    AgentEvent e;
    if (subtype == QLatin1String("init")) {
        e.kind = Kind::SessionStarted;
        e.sessionId = str(line, "session_id");
        e.model = str(line, "model");
    } else if (subtype == QLatin1String("api_retry")) {
        e.kind = Kind::ApiRetry;
        e.attempt = line.value(QLatin1String("attempt")).toInt();
        e.text = str(line, "error");
    } else if (subtype == QLatin1String("status")) {
        // "compacting" while the CLI summarises the context; any other status ends it.
        e.kind = Kind::Compacting;
        e.active = str(line, "status") == QLatin1String("compacting");
    } else if (subtype == QLatin1String("compact_boundary")) {
        e.kind = Kind::Compacting;
        e.active = false;
    } else {
        return;
    }
    out.append(e);
}

} // namespace

QList<AgentEvent> parseClaudeLine(const QByteArray &line, bool *malformed) {
    QList<AgentEvent> out;
    if (malformed)
        *malformed = false;
    if (line.trimmed().isEmpty())
        return out;
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject()) {
        if (malformed)
            *malformed = true;
        return out;
    }
    const QJsonObject o = doc.object();
    const QString type = str(o, "type");
    if (type == QLatin1String("stream_event"))
        parseStreamEvent(o, out);
    else if (type == QLatin1String("assistant"))
        parseAssistant(o, out);
    else if (type == QLatin1String("user"))
        parseUser(o, out);
    else if (type == QLatin1String("result"))
        parseResult(o, out);
    else if (type == QLatin1String("system"))
        parseSystem(o, out);
    return out;
}

double lastSessionCost(const QByteArray &tail) {
    for (qsizetype at = tail.lastIndexOf("\"cost-state\""); at >= 0;
         at = at > 0 ? tail.lastIndexOf("\"cost-state\"", at - 1) : -1) {
        const qsizetype begin = tail.lastIndexOf('\n', at) + 1;
        qsizetype end = tail.indexOf('\n', at);
        if (end < 0)
            end = tail.size();
        const QJsonObject o = QJsonDocument::fromJson(tail.mid(begin, end - begin)).object();
        if (str(o, "type") != QLatin1String("cost-state"))
            continue; // the words in some text, or a line cut by the tail's start
        const double cost = o.value(QLatin1String("totalCostUSD")).toDouble();
        return qIsFinite(cost) && cost > 0 ? cost : 0;
    }
    return 0;
}

QByteArray claudeUserMessage(const QString &text) {
    const QJsonObject message{
        {QStringLiteral("type"), QStringLiteral("user")},
        {QStringLiteral("message"), QJsonObject{{QStringLiteral("role"), QStringLiteral("user")},
                                                {QStringLiteral("content"), text}}}};
    return QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace flotilla
