#include "support/MockOpenAI.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla::test {

namespace {

using mockjson::compact;
using mockjson::lit;
using mockjson::obj;
using mockjson::splitText;

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// One SSE event; the payload carries its own "type" as the real API's do.
QByteArray sse(const char *event, QJsonObject data) {
    data.insert(QStringLiteral("type"), QLatin1String(event));
    return QByteArray("event: ") + event + "\ndata: " + compact(data) + "\n\n";
}

// The input_text / output_text parts of a message item joined with "\n".
QString messageText(const QJsonObject &item) {
    const QJsonValue content = item.value(QLatin1String("content"));
    if (content.isString())
        return content.toString();
    QStringList parts;
    const QJsonArray blocks = content.toArray();
    for (const QJsonValue &b : blocks) {
        const QString type = str(b.toObject(), "type");
        if (type == QLatin1String("input_text") || type == QLatin1String("output_text"))
            parts << str(b.toObject(), "text");
    }
    return parts.join(QLatin1Char('\n'));
}

QJsonObject findFunctionCallOutput(const QJsonObject &body, const QString &callId) {
    const QJsonArray input = body.value(QLatin1String("input")).toArray();
    for (const QJsonValue &v : input) {
        const QJsonObject o = v.toObject();
        if (str(o, "type") == QLatin1String("function_call_output") && str(o, "call_id") == callId)
            return o;
    }
    return {};
}

} // namespace

MockOpenAI::MockOpenAI(QObject *parent)
    : MockHttpServer({"/v1/responses", "x-request-id", Pacing::Gap, {}}, parent) {
}

MockOpenAI::~MockOpenAI() = default;

QUrl MockOpenAI::baseUrl() const {
    return QUrl(QStringLiteral("http://127.0.0.1:%1/v1").arg(port()));
}

QString MockOpenAI::codexBinary() {
    return QStringLiteral(FLOTILLA_TEST_CODEX_BIN);
}

QString MockOpenAI::configToml() const {
    return QStringLiteral("model = \"gpt-mock\"\n"
                          "model_provider = \"mock\"\n"
                          "[model_providers.mock]\n"
                          "name = \"mock\"\n"
                          "base_url = \"%1\"\n"
                          "env_key = \"OPENAI_API_KEY\"\n"
                          "wire_api = \"responses\"\n")
        .arg(baseUrl().toString());
}

QProcessEnvironment MockOpenAI::codexEnvironment(const QString &home) const {
    const QString codexHome = home + QStringLiteral("/.codex");
    const QString tmp = home + QStringLiteral("/tmp");
    QFile config(codexHome + QStringLiteral("/config.toml"));
    if (!QDir().mkpath(codexHome) || !QDir().mkpath(tmp) ||
        !config.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        config.write(configToml().toUtf8()) < 0 || !config.flush())
        return {};

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QStringList keys = env.keys();
    for (const QString &k : keys) {
        if (k.startsWith(QLatin1String("OPENAI_")) || k.startsWith(QLatin1String("CODEX_")) ||
            k.compare(QLatin1String("http_proxy"), Qt::CaseInsensitive) == 0 ||
            k.compare(QLatin1String("https_proxy"), Qt::CaseInsensitive) == 0 ||
            k.compare(QLatin1String("all_proxy"), Qt::CaseInsensitive) == 0 ||
            k.compare(QLatin1String("no_proxy"), Qt::CaseInsensitive) == 0)
            env.remove(k);
    }
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("TMPDIR"), tmp);
    env.insert(QStringLiteral("NO_PROXY"), QStringLiteral("127.0.0.1,localhost"));
    env.insert(QStringLiteral("OPENAI_API_KEY"), QStringLiteral("sk-test"));
    return env;
}

void MockOpenAI::queueText(const QString &text, int deltas, int delayMsBetweenDeltas) {
    Turn t;
    t.text = text;
    t.deltas = deltas;
    t.delayMs = delayMsBetweenDeltas;
    m_queue << t;
}

QString MockOpenAI::queueFunctionCall(const QString &name, const QJsonObject &arguments,
                                      const QString &callId, const QString &nameSpace) {
    Turn t;
    t.kind = Turn::FunctionCall;
    t.name = name;
    t.nameSpace = nameSpace;
    t.arguments = arguments;
    t.callId = callId.isEmpty() ? QStringLiteral("call_mock_%1").arg(++m_callSeq) : callId;
    m_queue << t;
    return t.callId;
}

QString MockOpenAI::queueCustomToolCall(const QString &name, const QString &input,
                                        const QString &callId) {
    Turn t;
    t.kind = Turn::CustomToolCall;
    t.name = name;
    t.input = input;
    t.callId = callId.isEmpty() ? QStringLiteral("call_mock_%1").arg(++m_callSeq) : callId;
    m_queue << t;
    return t.callId;
}

void MockOpenAI::queueError(int httpStatus, const QString &message, int times) {
    Turn t;
    t.kind = Turn::Error;
    t.status = httpStatus;
    t.text = message;
    for (int i = 0; i < times; ++i)
        m_queue << t;
}

void MockOpenAI::queueHang() {
    Turn t;
    t.kind = Turn::Hang;
    m_queue << t;
}

void MockOpenAI::setUsage(int inputTokens, int outputTokens, int cachedTokens) {
    m_inputTokens = inputTokens;
    m_outputTokens = outputTokens;
    m_cachedTokens = cachedTokens;
}

QString MockOpenAI::lastUserTextOf(int i) const {
    const QJsonArray input = request(i).value(QLatin1String("input")).toArray();
    for (auto it = input.end(); it != input.begin();) {
        --it;
        const QJsonObject item = (*it).toObject();
        if (str(item, "role") == QLatin1String("user"))
            return messageText(item);
    }
    return {};
}

QString MockOpenAI::instructionsOf(int i) const {
    const QJsonObject body = request(i);
    QStringList parts;
    if (body.contains(QLatin1String("instructions")))
        parts << str(body, "instructions");
    const QJsonArray input = body.value(QLatin1String("input")).toArray();
    for (const QJsonValue &v : input) {
        if (str(v.toObject(), "role") == QLatin1String("developer"))
            parts << messageText(v.toObject());
    }
    return parts.join(QLatin1Char('\n'));
}

bool MockOpenAI::hasFunctionCallOutput(int i, const QString &callId) const {
    return !findFunctionCallOutput(request(i), callId).isEmpty();
}

QString MockOpenAI::functionCallOutputOf(int i, const QString &callId) const {
    const QJsonValue output =
        findFunctionCallOutput(request(i), callId).value(QLatin1String("output"));
    return output.isString() ? output.toString() : messageText(obj({{"content", output}}));
}

QJsonObject MockOpenAI::otherAnswer(const QByteArray &path) const {
    return path.endsWith("/models") ? obj({{"object", lit("list")}, {"data", QJsonArray()}})
                                    : QJsonObject();
}

void MockOpenAI::answer(Connection *conn, int index) {
    const QString model = str(request(index), "model");
    const Turn turn = nextTurn(m_queue);
    if (turn.kind == Turn::Hang) {
        conn->hang();
        return;
    }
    if (turn.kind == Turn::Error) {
        const QJsonValue type = turn.status >= 500   ? lit("server_error")
                                : turn.status == 429 ? lit("rate_limit_exceeded")
                                                     : lit("invalid_request_error");
        conn->respond(turn.status, "application/json",
                      compact(obj({{"error", obj({{"message", turn.text},
                                                  {"type", type},
                                                  {"param", QJsonValue()},
                                                  {"code", QJsonValue()}})}})));
        Q_EMIT responseFinished(index);
        return;
    }
    conn->stream(sseEvents(turn, index, model), turn.delayMs, index);
}

QJsonObject MockOpenAI::usage() const {
    return obj({{"input_tokens", m_inputTokens},
                {"input_tokens_details", obj({{"cached_tokens", m_cachedTokens}})},
                {"output_tokens", m_outputTokens},
                {"output_tokens_details", obj({{"reasoning_tokens", 0}})},
                {"total_tokens", m_inputTokens + m_outputTokens}});
}

// The SSE events of one answer in groups: each group is written at once; paced answers wait
// the turn's delay between groups. Shapes follow the Responses API's streaming events.
QList<QByteArray> MockOpenAI::sseEvents(const Turn &turn, int index, const QString &model) const {
    const QString responseId = QStringLiteral("resp_mock_%1").arg(index);
    const auto response = [&](const char *status, const QJsonArray &output) {
        QJsonObject r = obj({{"id", responseId},
                             {"object", lit("response")},
                             {"created_at", 0},
                             {"status", lit(status)},
                             {"model", model},
                             {"output", output}});
        if (output.isEmpty())
            return r;
        r.insert(QStringLiteral("usage"), usage());
        return r;
    };
    const bool call = turn.kind == Turn::FunctionCall;
    const bool custom = turn.kind == Turn::CustomToolCall;
    const QString itemId =
        (call ? QStringLiteral("fc_mock_%1")
              : (custom ? QStringLiteral("ctc_mock_%1") : QStringLiteral("msg_mock_%1")))
            .arg(index);
    const QString arguments = QString::fromUtf8(compact(turn.arguments));
    const auto item = [&](bool done) {
        if (custom)
            return obj({{"type", lit("custom_tool_call")},
                        {"id", itemId},
                        {"call_id", turn.callId},
                        {"name", turn.name},
                        {"input", done ? turn.input : QString()},
                        {"status", done ? lit("completed") : lit("in_progress")}});
        if (call) {
            QJsonObject fc = obj({{"type", lit("function_call")},
                                  {"id", itemId},
                                  {"call_id", turn.callId},
                                  {"name", turn.name},
                                  {"arguments", done ? arguments : QString()},
                                  {"status", done ? lit("completed") : lit("in_progress")}});
            if (!turn.nameSpace.isEmpty())
                fc.insert(QStringLiteral("namespace"), turn.nameSpace);
            return fc;
        }
        const QJsonArray content = done ? QJsonArray{obj({{"type", lit("output_text")},
                                                          {"text", turn.text},
                                                          {"annotations", QJsonArray()}})}
                                        : QJsonArray();
        return obj({{"type", lit("message")},
                    {"id", itemId},
                    {"role", lit("assistant")},
                    {"status", done ? lit("completed") : lit("in_progress")},
                    {"content", content}});
    };

    QList<QByteArray> groups;
    const QStringList pieces = splitText(call ? arguments : turn.text, call ? 2 : turn.deltas);
    for (const QString &piece : pieces) {
        if (custom) { // its input arrives whole with output_item.done
            groups << QByteArray();
            break;
        }
        groups << (call ? sse("response.function_call_arguments.delta",
                              obj({{"item_id", itemId}, {"output_index", 0}, {"delta", piece}}))
                        : sse("response.output_text.delta", obj({{"item_id", itemId},
                                                                 {"output_index", 0},
                                                                 {"content_index", 0},
                                                                 {"delta", piece}})));
    }
    groups.first().prepend(
        sse("response.created", obj({{"response", response("in_progress", {})}})) +
        sse("response.output_item.added", obj({{"output_index", 0}, {"item", item(false)}})));
    groups.last() +=
        sse("response.output_item.done", obj({{"output_index", 0}, {"item", item(true)}})) +
        sse("response.completed",
            obj({{"response", response("completed", QJsonArray{item(true)})}}));
    return groups;
}

} // namespace flotilla::test
