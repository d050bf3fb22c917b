#include "agents/codex/CodexEvents.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtNumeric>

#include <limits>

namespace flotilla::codex {

namespace {

QByteArray line(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

QString str(const QJsonObject &o, QLatin1String key) {
    return o.value(key).toString();
}

QJsonObject obj(const QJsonObject &o, QLatin1String key) {
    return o.value(key).toObject();
}

// A turn's token sums: a CLI reporting absurd counts must not overflow them (found by
// fuzz_codex_line: two usage lines of 2^63-1).
qint64 saturatingAdd(qint64 a, qint64 b) {
    qint64 sum = 0;
    return qAddOverflow(a, b, &sum) ? std::numeric_limits<qint64>::max() : sum;
}

// A command item's input, as a tool chunk shows it.
QJsonObject commandInput(const QJsonObject &item) {
    QJsonObject input{{QStringLiteral("command"), item.value(QLatin1String("command"))}};
    if (item.value(QLatin1String("cwd")).isString())
        input.insert(QStringLiteral("cwd"), item.value(QLatin1String("cwd")));
    return input;
}

// A file change item's input, as a tool chunk and an approval request show it: per file its
// path, kind ("add", "delete", "update"; Codex sends {type, move_path}) and diff, so that a user
// asked to approve sees what would change. Diffs are capped: the input is kept in tool history.
QJsonObject fileChangeInput(const QJsonObject &item) {
    constexpr qsizetype kMaxDiffChars = 16 * 1024;
    QJsonArray changes;
    for (const QJsonValue &c : item.value(QLatin1String("changes")).toArray()) {
        const QJsonObject change = c.toObject();
        const QJsonValue kind = change.value(QLatin1String("kind"));
        QJsonObject out{{QStringLiteral("path"), change.value(QLatin1String("path"))},
                        {QStringLiteral("kind"),
                         kind.isObject() ? kind.toObject().value(QLatin1String("type")) : kind}};
        const QString movePath = kind.toObject().value(QLatin1String("move_path")).toString();
        if (!movePath.isEmpty())
            out.insert(QStringLiteral("movePath"), movePath);
        QString diff = str(change, QLatin1String("diff"));
        if (diff.size() > kMaxDiffChars)
            diff = diff.left(kMaxDiffChars) + QStringLiteral("\n[... diff truncated]\n");
        if (!diff.isEmpty())
            out.insert(QStringLiteral("diff"), diff);
        changes.append(out);
    }
    return {{QStringLiteral("changes"), changes}};
}

QString fileChangeOutput(const QJsonObject &item) {
    QStringList out;
    for (const QJsonValue &c : item.value(QLatin1String("changes")).toArray())
        out << c.toObject().value(QLatin1String("diff")).toString();
    return out.join(QLatin1Char('\n'));
}

AgentEvent toolUse(const QJsonObject &item, const char *tool, const QJsonObject &input) {
    AgentEvent e;
    e.kind = AgentEvent::Kind::ToolUse;
    e.toolUseId = str(item, QLatin1String("id"));
    e.toolName = QLatin1String(tool);
    e.toolInput = input;
    return e;
}

AgentEvent toolResult(const QJsonObject &item, const QString &output, bool isError) {
    AgentEvent e;
    e.kind = AgentEvent::Kind::ToolResult;
    e.toolUseId = str(item, QLatin1String("id"));
    e.toolOutput = output;
    e.isError = isError;
    return e;
}

// What an MCP tool answered, as the model reads it: its text parts (structured content and
// other parts only when there is no text), or the call's error.
QString mcpToolOutput(const QJsonObject &item) {
    const QJsonObject result = item.value(QLatin1String("result")).toObject();
    QStringList texts;
    for (const QJsonValue &c : result.value(QLatin1String("content")).toArray()) {
        const QJsonObject part = c.toObject();
        if (str(part, QLatin1String("type")) == QLatin1String("text"))
            texts << str(part, QLatin1String("text"));
    }
    if (!texts.isEmpty())
        return texts.join(QLatin1Char('\n'));
    QString error = str(obj(item, QLatin1String("error")), QLatin1String("message"));
    if (!error.isEmpty())
        return error;
    const QJsonValue structured = result.value(QLatin1String("structuredContent"));
    if (structured.isObject())
        return QString::fromUtf8(
            QJsonDocument(structured.toObject()).toJson(QJsonDocument::Compact));
    return result.isEmpty()
               ? QString()
               : QString::fromUtf8(QJsonDocument(result).toJson(QJsonDocument::Compact));
}

QList<AgentEvent> itemEvents(bool started, const QJsonObject &item, TurnState *state) {
    const QString type = str(item, QLatin1String("type"));
    const QString status = str(item, QLatin1String("status"));
    if (type == QLatin1String("agentMessage")) {
        if (!started)
            state->lastAgentText = str(item, QLatin1String("text"));
        return {};
    }
    if (type == QLatin1String(kCommandTool)) {
        if (started)
            return {toolUse(item, kCommandTool, commandInput(item))};
        const QJsonValue exit = item.value(QLatin1String("exitCode"));
        QString output = str(item, QLatin1String("aggregatedOutput"));
        if (status == QLatin1String("declined"))
            output = QStringLiteral("(declined: the command did not run)");
        const bool failed =
            status != QLatin1String("completed") || (exit.isDouble() && exit.toInt() != 0);
        return {toolResult(item, output, failed)};
    }
    if (type == QLatin1String(kMcpToolCall)) {
        if (started) {
            // Named as Claude names it (mcp__<server>__<tool>), so both CLIs' calls of one
            // server's tool read alike in transcripts, tool history and permission rules.
            AgentEvent e = toolUse(item, "", item.value(QLatin1String("arguments")).toObject());
            e.toolName =
                mcpToolName(str(item, QLatin1String("server")), str(item, QLatin1String("tool")));
            return {e};
        }
        const bool failed =
            status != QLatin1String("completed") ||
            item.value(QLatin1String("result")).toObject().value(QLatin1String("isError")).toBool();
        return {toolResult(item, mcpToolOutput(item), failed)};
    }
    if (type == QLatin1String(kFileChangeTool)) {
        if (started)
            return {toolUse(item, kFileChangeTool, fileChangeInput(item))};
        const QString output = status == QLatin1String("declined")
                                   ? QStringLiteral("(declined: nothing was changed)")
                                   : fileChangeOutput(item);
        return {toolResult(item, output, status != QLatin1String("completed"))};
    }
    return {};
}

} // namespace

QString mcpToolName(const QString &server, const QString &tool) {
    return QStringLiteral("mcp__%1__%2").arg(server, tool);
}

Message parseLine(const QByteArray &text) {
    Message m;
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(text, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return m;
    const QJsonObject o = doc.object();
    m.id = o.value(QLatin1String("id"));
    m.method = str(o, QLatin1String("method"));
    m.params = obj(o, QLatin1String("params"));
    const bool hasId = m.id.isDouble() || m.id.isString();
    if (!m.method.isEmpty()) {
        m.type = hasId ? Message::Type::ServerRequest : Message::Type::Notification;
    } else if (hasId && o.contains(QLatin1String("error"))) {
        m.type = Message::Type::ErrorResponse;
        m.errorMessage = str(obj(o, QLatin1String("error")), QLatin1String("message"));
        if (m.errorMessage.isEmpty())
            m.errorMessage = QStringLiteral("error without a message");
    } else if (hasId && o.contains(QLatin1String("result"))) {
        m.type = Message::Type::Response;
        m.result = obj(o, QLatin1String("result"));
    }
    return m;
}

QByteArray request(int id, const QString &method, const QJsonObject &params) {
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                 {QStringLiteral("id"), id},
                 {QStringLiteral("method"), method},
                 {QStringLiteral("params"), params}});
}

QByteArray notification(const QString &method, const QJsonObject &params) {
    QJsonObject o{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        o.insert(QStringLiteral("params"), params);
    return line(o);
}

QByteArray response(const QJsonValue &id, const QJsonObject &result) {
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                 {QStringLiteral("id"), id},
                 {QStringLiteral("result"), result}});
}

QByteArray errorResponse(const QJsonValue &id, int code, const QString &message) {
    return line({{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                 {QStringLiteral("id"), id},
                 {QStringLiteral("error"), QJsonObject{{QStringLiteral("code"), code},
                                                       {QStringLiteral("message"), message}}}});
}

QList<AgentEvent> eventsOf(const QString &method, const QJsonObject &params, TurnState *state) {
    if (method == QLatin1String("item/agentMessage/delta")) {
        AgentEvent e;
        e.kind = AgentEvent::Kind::TextDelta;
        e.text = str(params, QLatin1String("delta"));
        return e.text.isEmpty() ? QList<AgentEvent>{} : QList<AgentEvent>{e};
    }
    if (method == QLatin1String("item/started") || method == QLatin1String("item/completed"))
        return itemEvents(method == QLatin1String("item/started"),
                          obj(params, QLatin1String("item")), state);
    if (method == QLatin1String("thread/tokenUsage/updated")) {
        const QJsonObject usage = obj(params, QLatin1String("tokenUsage"));
        const QJsonObject last = obj(usage, QLatin1String("last"));
        // OpenAI's input tokens include the cached ones: all of it was in the window.
        const qint64 input = qMax<qint64>(0, last.value(QLatin1String("inputTokens")).toInteger());
        const qint64 output =
            qMax<qint64>(0, last.value(QLatin1String("outputTokens")).toInteger());
        const qint64 cached =
            qBound<qint64>(0, last.value(QLatin1String("cachedInputTokens")).toInteger(), input);
        state->turnUsage.inputTokens = saturatingAdd(state->turnUsage.inputTokens, input - cached);
        state->turnUsage.cacheReadTokens = saturatingAdd(state->turnUsage.cacheReadTokens, cached);
        state->turnUsage.outputTokens = saturatingAdd(state->turnUsage.outputTokens, output);
        state->usage.inputTokens = saturatingAdd(state->usage.inputTokens, input);
        state->usage.outputTokens = saturatingAdd(state->usage.outputTokens, output);
        state->usage.contextTokens = input;
        state->usage.contextWindow =
            qMax<qint64>(0, usage.value(QLatin1String("modelContextWindow")).toInteger());
        AgentEvent e;
        e.kind = AgentEvent::Kind::Usage;
        e.usage.inputTokens = input;
        e.usage.outputTokens = output;
        e.usage.contextTokens = input;
        e.usage.contextWindow = state->usage.contextWindow;
        return {e};
    }
    if (method == QLatin1String("error")) {
        const QString message = str(obj(params, QLatin1String("error")), QLatin1String("message"));
        if (!params.value(QLatin1String("willRetry")).toBool()) {
            state->lastError = message;
            return {};
        }
        AgentEvent e;
        e.kind = AgentEvent::Kind::ApiRetry;
        e.attempt = ++state->retries;
        e.text = message;
        return {e};
    }
    if (method == QLatin1String("turn/completed")) {
        const QJsonObject turn = obj(params, QLatin1String("turn"));
        const QString status = str(turn, QLatin1String("status"));
        AgentEvent e;
        e.kind = AgentEvent::Kind::TurnEnded;
        e.usage = state->usage;
        e.turnUsage = state->turnUsage;
        e.turnUsage.turns = 1;
        if (status == QLatin1String("failed")) {
            e.isError = true;
            e.text = str(obj(turn, QLatin1String("error")), QLatin1String("message"));
            if (e.text.isEmpty())
                e.text = state->lastError.isEmpty() ? QStringLiteral("the Codex turn failed")
                                                    : state->lastError;
        } else {
            e.text = state->lastAgentText;
        }
        state->reset();
        return {e};
    }
    return {};
}

} // namespace flotilla::codex
