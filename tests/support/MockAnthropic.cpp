#include "support/MockAnthropic.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla::test {

namespace {

using mockjson::compact;
using mockjson::lit;
using mockjson::obj;
using mockjson::splitText;

QByteArray sse(const char *event, const QJsonObject &data) {
    return QByteArray("event: ") + event + "\ndata: " + compact(data) + "\n\n";
}

// Text of a "content" value: a string, or the text blocks of an array joined with "\n".
QString contentText(const QJsonValue &content) {
    if (content.isString())
        return content.toString();
    QStringList parts;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &b : blocks) {
        if (b.toObject().value(QLatin1String("type")).toString() == QLatin1String("text"))
            parts << b.toObject().value(QLatin1String("text")).toString();
    }
    return parts.join(QLatin1Char('\n'));
}

QJsonObject lastUserMessage(const QJsonObject &body) {
    const QJsonArray messages = body.value(QLatin1String("messages")).toArray();
    for (auto it = messages.end(); it != messages.begin();) {
        --it;
        const QJsonObject m = (*it).toObject();
        if (m.value(QLatin1String("role")).toString() == QLatin1String("user"))
            return m;
    }
    return {};
}

QJsonObject findToolResult(const QJsonObject &body, const QString &toolUseId) {
    const QJsonArray blocks = lastUserMessage(body).value(QLatin1String("content")).toArray();
    for (const QJsonValue &b : blocks) {
        const QJsonObject o = b.toObject();
        if (o.value(QLatin1String("type")).toString() == QLatin1String("tool_result") &&
            (toolUseId.isEmpty() || o.value(QLatin1String("tool_use_id")).toString() == toolUseId))
            return o;
    }
    return {};
}

} // namespace

MockAnthropic::MockAnthropic(QObject *parent)
    : MockHttpServer({"/v1/messages", "request-id", Pacing::Schedule, kStampToken}, parent) {
}

MockAnthropic::~MockAnthropic() = default;

QUrl MockAnthropic::baseUrl() const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port()));
}

QString MockAnthropic::claudeBinary() {
    return QStringLiteral(FLOTILLA_TEST_CLAUDE_BIN);
}

QProcessEnvironment MockAnthropic::claudeEnvironment(const QString &home) const {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QStringList keys = env.keys();
    for (const QString &k : keys) {
        if (k.startsWith(QLatin1String("ANTHROPIC_")) || k.startsWith(QLatin1String("CLAUDE")) ||
            k.startsWith(QLatin1String("XDG_")) ||
            k.compare(QLatin1String("http_proxy"), Qt::CaseInsensitive) == 0 ||
            k.compare(QLatin1String("https_proxy"), Qt::CaseInsensitive) == 0 ||
            k.compare(QLatin1String("all_proxy"), Qt::CaseInsensitive) == 0)
            env.remove(k);
    }
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("NO_PROXY"), QStringLiteral("127.0.0.1,localhost"));
    env.insert(QStringLiteral("ANTHROPIC_BASE_URL"), baseUrl().toString());
    env.insert(QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral("sk-test"));
    env.insert(QStringLiteral("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), QStringLiteral("1"));
    return env;
}

void MockAnthropic::queueDeltas(const QStringList &pieces, int delayMsBetweenDeltas) {
    Turn t;
    t.kind = Turn::Text;
    t.pieces = pieces;
    t.text = pieces.join(QString());
    t.deltas = int(pieces.size());
    t.delayMs = delayMsBetweenDeltas;
    m_queue.append(t);
}

void MockAnthropic::queueText(const QString &text, int deltas, int delayMsBetweenDeltas) {
    Turn t;
    t.text = text;
    t.deltas = deltas;
    t.delayMs = delayMsBetweenDeltas;
    m_queue << t;
}

void MockAnthropic::queueSlow(const QString &text, int totalMs) {
    queueText(text, 10, qMax(1, totalMs / 9));
}

QString MockAnthropic::queueToolUse(const QString &toolName, const QJsonObject &input,
                                    const QString &toolUseId) {
    Turn t;
    t.kind = Turn::ToolUse;
    t.toolName = toolName;
    t.input = input;
    t.toolUseId =
        toolUseId.isEmpty() ? QStringLiteral("toolu_mock_%1").arg(++m_toolSeq) : toolUseId;
    m_queue << t;
    return t.toolUseId;
}

void MockAnthropic::queueError(int httpStatus, const QString &errorType, const QString &message,
                               int times, Retry retry) {
    Turn t;
    t.retry = retry;
    t.kind = Turn::Error;
    t.status = httpStatus;
    t.errorType = errorType;
    t.text = message;
    for (int i = 0; i < times; ++i)
        m_queue << t;
}

void MockAnthropic::queueHang() {
    Turn t;
    t.kind = Turn::Hang;
    m_queue << t;
}

void MockAnthropic::setUsage(int inputTokens, int outputTokens, int cacheRead, int cacheCreation) {
    m_inputTokens = inputTokens;
    m_outputTokens = outputTokens;
    m_cacheRead = cacheRead;
    m_cacheCreation = cacheCreation;
}

QString MockAnthropic::systemPromptOf(int i) const {
    return contentText(request(i).value(QLatin1String("system")));
}

QString MockAnthropic::lastUserTextOf(int i) const {
    return contentText(lastUserMessage(request(i)).value(QLatin1String("content")));
}

bool MockAnthropic::hasToolResult(int i, const QString &toolUseId) const {
    return !findToolResult(request(i), toolUseId).isEmpty();
}

QString MockAnthropic::toolResultTextOf(int i, const QString &toolUseId) const {
    return contentText(findToolResult(request(i), toolUseId).value(QLatin1String("content")));
}

QJsonObject MockAnthropic::otherAnswer(const QByteArray &path) const {
    return path.endsWith("/count_tokens") ? obj({{"input_tokens", m_inputTokens}}) : QJsonObject();
}

void MockAnthropic::answer(Connection *conn, int index) {
    const QJsonObject req = request(index);
    const bool streaming = req.value(QLatin1String("stream")).toBool();
    const QString model = req.value(QLatin1String("model")).toString();
    const Turn turn = nextTurn(m_queue);
    if (turn.kind == Turn::Hang) {
        conn->hang();
        return;
    }
    if (turn.kind == Turn::Error) {
        const QJsonObject body =
            obj({{"type", lit("error")},
                 {"error", obj({{"type", turn.errorType}, {"message", turn.text}})}});
        const QByteArray hint = turn.retry == Retry::No    ? "x-should-retry: false\r\n"
                                : turn.retry == Retry::Yes ? "x-should-retry: true\r\n"
                                                           : "";
        conn->respond(turn.status, "application/json", compact(body), hint);
        Q_EMIT responseFinished(index);
        return;
    }
    const bool tool = turn.kind == Turn::ToolUse;
    const QJsonObject block = tool ? obj({{"type", lit("tool_use")},
                                          {"id", turn.toolUseId},
                                          {"name", turn.toolName},
                                          {"input", turn.input}})
                                   : obj({{"type", lit("text")}, {"text", turn.text}});
    const QString id = QStringLiteral("msg_mock_%1").arg(++m_messageSeq);
    if (streaming) {
        conn->stream(sseEvents(turn, id, model), turn.delayMs, index);
        return;
    }
    // Not streamed (the CLI's fallback after a 404, for one): the whole message as JSON.
    const QJsonObject message = obj({{"id", id},
                                     {"type", lit("message")},
                                     {"role", lit("assistant")},
                                     {"model", model},
                                     {"content", QJsonArray{block}},
                                     {"stop_reason", tool ? lit("tool_use") : lit("end_turn")},
                                     {"stop_sequence", QJsonValue()},
                                     {"usage", usage(m_outputTokens)}});
    conn->respond(200, "application/json", compact(message));
    Q_EMIT responseFinished(index);
}

QJsonObject MockAnthropic::usage(int outputTokens) const {
    return obj({{"input_tokens", m_inputTokens},
                {"cache_creation_input_tokens", m_cacheCreation},
                {"cache_read_input_tokens", m_cacheRead},
                {"output_tokens", outputTokens}});
}

// The SSE events of one answer in groups: each group is written at once; paced answers wait
// the turn's delay between groups.
QList<QByteArray> MockAnthropic::sseEvents(const Turn &turn, const QString &id,
                                           const QString &model) const {
    const bool tool = turn.kind == Turn::ToolUse;
    const QJsonObject message = obj({{"id", id},
                                     {"type", lit("message")},
                                     {"role", lit("assistant")},
                                     {"model", model},
                                     {"content", QJsonArray()},
                                     {"stop_reason", QJsonValue()},
                                     {"stop_sequence", QJsonValue()},
                                     {"usage", usage(1)}});
    const QJsonObject block = tool ? obj({{"type", lit("tool_use")},
                                          {"id", turn.toolUseId},
                                          {"name", turn.toolName},
                                          {"input", QJsonObject()}})
                                   : obj({{"type", lit("text")}, {"text", QString()}});
    const QByteArray head =
        sse("message_start", obj({{"type", lit("message_start")}, {"message", message}})) +
        sse("content_block_start",
            obj({{"type", lit("content_block_start")}, {"index", 0}, {"content_block", block}}));

    QList<QByteArray> groups;
    const QString payload = tool ? QString::fromUtf8(compact(turn.input)) : turn.text;
    const QStringList pieces =
        !tool && !turn.pieces.isEmpty() ? turn.pieces : splitText(payload, tool ? 2 : turn.deltas);
    for (const QString &piece : pieces) {
        const QJsonObject delta =
            tool ? obj({{"type", lit("input_json_delta")}, {"partial_json", piece}})
                 : obj({{"type", lit("text_delta")}, {"text", piece}});
        groups << sse("content_block_delta",
                      obj({{"type", lit("content_block_delta")}, {"index", 0}, {"delta", delta}}));
    }
    if (groups.isEmpty())
        groups << QByteArray();
    groups.first().prepend(head);
    const QJsonObject stop = obj({{"stop_reason", tool ? lit("tool_use") : lit("end_turn")},
                                  {"stop_sequence", QJsonValue()}});
    groups.last() +=
        sse("content_block_stop", obj({{"type", lit("content_block_stop")}, {"index", 0}})) +
        sse("message_delta", obj({{"type", lit("message_delta")},
                                  {"delta", stop},
                                  {"usage", usage(m_outputTokens)}})) +
        sse("message_stop", obj({{"type", lit("message_stop")}}));
    return groups;
}

} // namespace flotilla::test
