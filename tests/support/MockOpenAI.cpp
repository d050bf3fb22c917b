#include "support/MockOpenAI.h"
#include "support/MockHttp.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

namespace flotilla::test {

namespace {

QByteArray compact(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// A JSON object from (key, value) pairs with plain ASCII keys.
QJsonObject obj(std::initializer_list<std::pair<const char *, QJsonValue>> fields) {
    QJsonObject o;
    for (const auto &f : fields)
        o.insert(QLatin1String(f.first), f.second);
    return o;
}

QJsonValue lit(const char *s) {
    return QJsonValue(QLatin1String(s));
}

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

// One SSE event; the payload carries its own "type" as the real API's do.
QByteArray sse(const char *event, QJsonObject data) {
    data.insert(QStringLiteral("type"), QLatin1String(event));
    return QByteArray("event: ") + event + "\ndata: " + compact(data) + "\n\n";
}

QByteArray statusText(int status) {
    return status == 200 ? "OK" : "Mock Error"; // clients ignore it
}

// `text` in `n` non-empty pieces of about equal length, never splitting a surrogate pair.
QStringList splitText(const QString &text, int n) {
    n = qBound(1, n, qMax(1, int(text.size())));
    QStringList out;
    int from = 0;
    for (int i = 1; i <= n; ++i) {
        int to = i == n ? int(text.size()) : int(qint64(text.size()) * i / n);
        if (to > from && to < text.size() && text.at(to - 1).isHighSurrogate())
            ++to;
        if (to > from || (i == n && out.isEmpty()))
            out << text.mid(from, to - from);
        from = qMax(from, to);
    }
    return out;
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

// One client connection: reads HTTP/1.1 requests one after the other (keep-alive) and writes the
// answers the mock plans, progressively when they are paced.
class MockOpenAI::Connection : public QObject {
public:
    Connection(MockOpenAI *mock, QTcpSocket *socket)
        : QObject(mock)
        , m_mock(mock)
        , m_socket(socket) {
        socket->setParent(this);
        m_timer.setSingleShot(true);
        QObject::connect(&m_timer, &QTimer::timeout, this, [this] { writeNextGroup(); });
        QObject::connect(socket, &QTcpSocket::readyRead, this, [this] { readRequests(); });
        QObject::connect(socket, &QTcpSocket::disconnected, this, [this] {
            if (m_busy)
                ++m_mock->m_abandoned;
            m_busy = false;
            m_timer.stop();
            deleteLater();
        });
    }

    void respond(int status, const QByteArray &body) {
        m_socket->write("HTTP/1.1 " + QByteArray::number(status) + ' ' + statusText(status) +
                        "\r\nContent-Type: application/json\r\nContent-Length: " +
                        QByteArray::number(body.size()) + "\r\nx-request-id: req_mock\r\n" +
                        connectionHeader() + "\r\n" + body);
        finish();
    }

    // An SSE answer in chunked encoding; groups after the first follow `delayMs` apart.
    void stream(const QList<QByteArray> &groups, int delayMs, int index) {
        m_busy = true;
        m_index = index;
        m_groups = groups;
        m_delayMs = delayMs;
        m_socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"
                        "x-request-id: req_mock\r\n" +
                        connectionHeader() + "\r\n");
        writeNextGroup();
    }

    // Never answers; the connection is counted as abandoned when the client drops it.
    void hang() { m_busy = true; }

private:
    QByteArray connectionHeader() const {
        return m_closeAfter ? QByteArrayLiteral("Connection: close\r\n")
                            : QByteArrayLiteral("Connection: keep-alive\r\n");
    }

    void writeNextGroup() {
        if (!m_busy)
            return;
        do {
            const QByteArray data = m_groups.takeFirst();
            m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
        } while (m_delayMs <= 0 && !m_groups.isEmpty());
        m_socket->flush();
        if (!m_groups.isEmpty()) {
            m_timer.start(m_delayMs);
            return;
        }
        m_socket->write("0\r\n\r\n");
        m_socket->flush();
        const int index = m_index;
        QPointer<MockOpenAI> mock = m_mock;
        finish();
        if (mock)
            Q_EMIT mock->responseFinished(index);
    }

    void finish() {
        m_busy = false;
        if (m_closeAfter) {
            m_socket->disconnectFromHost();
            return;
        }
        QTimer::singleShot(0, this, [this] { readRequests(); }); // a pipelined next request
    }

    void readRequests() {
        m_buffer += m_socket->readAll();
        while (!m_busy && !m_closeAfter) {
            MockHttpRequest http;
            const HttpTake took = takeHttpRequest(&m_buffer, &http);
            if (took == HttpTake::TooLarge)
                m_socket->abort();
            if (took != HttpTake::Taken)
                return;
            m_closeAfter = http.closeAfter();
            Request req;
            req.method = http.method;
            req.target = http.target;
            req.headers = http.headers;
            req.body = http.body;
            req.json = QJsonDocument::fromJson(req.body).object();
            m_mock->handle(this, std::move(req));
        }
    }

    MockOpenAI *m_mock;
    QTcpSocket *m_socket;
    QByteArray m_buffer;
    QTimer m_timer;
    QList<QByteArray> m_groups;
    int m_delayMs = 0;
    int m_index = -1;
    bool m_busy = false;
    bool m_closeAfter = false;
};

MockOpenAI::MockOpenAI(QObject *parent)
    : QObject(parent) {
    connect(&m_server, &QTcpServer::newConnection, this, &MockOpenAI::onNewConnection);
}

MockOpenAI::~MockOpenAI() = default;

bool MockOpenAI::start() {
    return m_server.listen(QHostAddress::LocalHost, 0);
}

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
                                      const QString &callId) {
    Turn t;
    t.kind = Turn::FunctionCall;
    t.name = name;
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

QList<QJsonObject> MockOpenAI::requests() const {
    QList<QJsonObject> out;
    for (const Request &r : m_requests)
        out << r.json;
    return out;
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

void MockOpenAI::onNewConnection() {
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1); // small paced SSE writes
        new Connection(this, socket);
    }
}

void MockOpenAI::handle(Connection *conn, Request req) {
    const qsizetype query = req.target.indexOf('?');
    const QByteArray path = query < 0 ? req.target : req.target.left(query);
    if (req.method != "POST" || path != "/v1/responses") {
        const QJsonObject answer = path.endsWith("/models")
                                       ? obj({{"object", lit("list")}, {"data", QJsonArray()}})
                                       : QJsonObject();
        m_others << std::move(req);
        Q_EMIT otherRequestReceived(int(m_others.size()) - 1);
        conn->respond(200, compact(answer));
        return;
    }

    const QString model = str(req.json, "model");
    m_requests << std::move(req);
    const int index = int(m_requests.size()) - 1;
    QPointer<Connection> guard = conn;
    Q_EMIT requestReceived(index); // a slot may still script this very turn
    if (!guard)
        return;

    Turn turn;
    if (!m_queue.isEmpty()) {
        turn = m_queue.takeFirst();
    } else {
        ++m_unscripted;
        turn.text = fallbackText();
        turn.deltas = 1;
    }
    if (turn.kind == Turn::Hang) {
        conn->hang();
        return;
    }
    if (turn.kind == Turn::Error) {
        const QJsonValue type = turn.status >= 500   ? lit("server_error")
                                : turn.status == 429 ? lit("rate_limit_exceeded")
                                                     : lit("invalid_request_error");
        conn->respond(turn.status, compact(obj({{"error", obj({{"message", turn.text},
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
        if (call)
            return obj({{"type", lit("function_call")},
                        {"id", itemId},
                        {"call_id", turn.callId},
                        {"name", turn.name},
                        {"arguments", done ? arguments : QString()},
                        {"status", done ? lit("completed") : lit("in_progress")}});
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
