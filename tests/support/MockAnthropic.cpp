#include "support/MockAnthropic.h"
#include "support/MockHttp.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QPointer>
#include <QTcpSocket>
#include <QTimer>

#include <chrono>

namespace flotilla::test {

namespace {
// Benchmarks measure model-to-client latency: every kStampToken in a text is replaced, at the
// moment its chunk is written to the socket, by the steady (CLOCK_MONOTONIC, shared by all
// processes of the machine) time in microseconds.
void stampNow(QByteArray &data) {
    if (!data.contains(MockAnthropic::kStampToken))
        return;
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::steady_clock::now().time_since_epoch())
                        .count();
    data.replace(MockAnthropic::kStampToken, QByteArray::number(qint64(us)));
}

QByteArray compact(const QJsonObject &o) {
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray sse(const char *event, const QJsonObject &data) {
    return QByteArray("event: ") + event + "\ndata: " + compact(data) + "\n\n";
}

QByteArray statusText(int status) {
    return status == 200 ? "OK" : status == 529 ? "Overloaded" : "Mock Error"; // clients ignore it
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

// One client connection: reads HTTP/1.1 requests one after the other (keep-alive) and writes the
// answers the mock plans, progressively when they are paced.
class MockAnthropic::Connection : public QObject {
public:
    Connection(MockAnthropic *mock, QTcpSocket *socket)
        : QObject(mock)
        , m_mock(mock)
        , m_socket(socket) {
        socket->setParent(this);
        m_timer.setSingleShot(true);
        m_timer.setTimerType(Qt::PreciseTimer);
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

    // A complete response at once.
    void respond(int status, const QByteArray &contentType, const QByteArray &body,
                 const QByteArray &extraHeaders = {}) {
        QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + statusText(status) +
                          "\r\nContent-Type: " + contentType +
                          "\r\nContent-Length: " + QByteArray::number(body.size()) +
                          "\r\nrequest-id: req_mock\r\n" + extraHeaders + connectionHeader() +
                          "\r\n";
        m_socket->write(head + body);
        finish();
    }

    // An SSE answer in chunked encoding; groups after the first follow `delayMs` apart.
    void stream(const QList<QByteArray> &groups, int delayMs, int index) {
        m_busy = true;
        m_index = index;
        m_groups = groups;
        m_delayMs = delayMs;
        m_sentGroups = 0;
        m_clock.start();
        m_socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n"
                        "request-id: req_mock\r\n" +
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
        if (m_delayMs <= 0) {
            for (const QByteArray &g : std::as_const(m_groups))
                writeChunk(g);
            m_groups.clear();
        } else {
            // Group k is due k * delayMs after the first, and every group already due is written
            // now: a timer that fires late on a loaded machine must not lower the paced rate
            // (the streaming benchmark's "1,000 deltas/s" delivered ~520/s before this).
            const qint64 now = m_clock.elapsed();
            while (!m_groups.isEmpty() && qint64(m_sentGroups) * m_delayMs <= now) {
                writeChunk(m_groups.takeFirst());
                ++m_sentGroups;
            }
        }
        if (!m_groups.isEmpty()) {
            m_timer.start(
                int(qMax<qint64>(0, qint64(m_sentGroups) * m_delayMs - m_clock.elapsed())));
            return;
        }
        m_socket->write("0\r\n\r\n");
        m_socket->flush();
        const int index = m_index;
        QPointer<MockAnthropic> mock = m_mock;
        finish();
        if (mock)
            Q_EMIT mock->responseFinished(index);
    }

    void writeChunk(QByteArray data) {
        stampNow(data);
        m_socket->write(QByteArray::number(data.size(), 16) + "\r\n" + data + "\r\n");
        m_socket->flush();
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

    MockAnthropic *m_mock;
    QTcpSocket *m_socket;
    QByteArray m_buffer;
    QTimer m_timer;
    QList<QByteArray> m_groups;
    int m_delayMs = 0;
    int m_sentGroups = 0;
    QElapsedTimer m_clock;
    int m_index = -1;
    bool m_busy = false;
    bool m_closeAfter = false;
};

MockAnthropic::MockAnthropic(QObject *parent)
    : QObject(parent) {
    connect(&m_server, &QTcpServer::newConnection, this, &MockAnthropic::onNewConnection);
}

MockAnthropic::~MockAnthropic() = default;

bool MockAnthropic::start() {
    return m_server.listen(QHostAddress::LocalHost, 0);
}

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

QList<QJsonObject> MockAnthropic::requests() const {
    QList<QJsonObject> out;
    for (const Request &r : m_requests)
        out << r.json;
    return out;
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

void MockAnthropic::onNewConnection() {
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        // Paced SSE events are small writes: without this, Nagle and the CLI's delayed ACK hold
        // some of them back for up to 40 ms, which the latency benchmark would charge to us.
        socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        new Connection(this, socket);
    }
}

void MockAnthropic::handle(Connection *conn, Request req) {
    const qsizetype query = req.target.indexOf('?');
    const QByteArray path = query < 0 ? req.target : req.target.left(query);
    if (req.method != "POST" || path != "/v1/messages") {
        m_others << req;
        const QJsonObject answer =
            path.endsWith("/count_tokens") ? obj({{"input_tokens", m_inputTokens}}) : QJsonObject();
        Q_EMIT otherRequestReceived(int(m_others.size()) - 1);
        conn->respond(200, "application/json", compact(answer));
        return;
    }

    const bool streaming = req.json.value(QLatin1String("stream")).toBool();
    const QString model = req.json.value(QLatin1String("model")).toString();
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
