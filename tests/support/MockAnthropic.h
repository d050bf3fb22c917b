#pragma once
// A scriptable stand-in for the Anthropic Messages API on loopback, for driving the real
// `claude` CLI in tests. Every `POST /v1/messages` consumes the next scripted turn (text, a
// tool call, an HTTP error, or a hang) and is answered as Server-Sent Events the way the real
// API streams them. Every request is recorded so tests can assert what the CLI sent.
//
// Point the CLI at it with claudeEnvironment(home): HOME, ANTHROPIC_BASE_URL=baseUrl(),
// ANTHROPIC_API_KEY and CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1. The mock lives in the test's
// thread: wait with QSignalSpy::wait / QTRY_* / QTest::qWaitFor, never with blocking calls.

#include "support/MockHttpServer.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace flotilla::test {

// The HTTP side (start(), port(), the request log and its signals) is MockHttpServer's.
class MockAnthropic final : public MockHttpServer {
    Q_OBJECT

public:
    explicit MockAnthropic(QObject *parent = nullptr);
    ~MockAnthropic() override;

    QUrl baseUrl() const; // http://127.0.0.1:<port>

    // The pinned CLI (FLOTILLA_TEST_CLAUDE_BIN) and a hermetic environment that points it here:
    // the system environment minus every ANTHROPIC_*, CLAUDE*, XDG_* and proxy variable, then
    // HOME=home, ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY=sk-test,
    // CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1.
    static QString claudeBinary();
    QProcessEnvironment claudeEnvironment(const QString &home) const;

    // --- Script: one turn per POST /v1/messages, in queue order ---
    // Text split into `deltas` text_delta events; with a delay the stream is written
    // progressively (one event group per tick), so tests can watch it and stop mid-turn.
    void queueText(const QString &text, int deltas = 3, int delayMsBetweenDeltas = 0);
    // In a queued text, replaced by the steady-clock time in microseconds at the moment the delta
    // holding it is written (for latency benchmarks; see bench/stream_bench.cpp).
    static constexpr const char *kStampToken = "@@now_us@@";
    // Text streamed as exactly these text_delta pieces (a benchmark's stamps stay whole).
    void queueDeltas(const QStringList &pieces, int delayMsBetweenDeltas);
    // The same text streamed over about totalMs (10 deltas).
    void queueSlow(const QString &text, int totalMs);
    // A tool_use block (input streamed as input_json_delta), stop_reason "tool_use". An empty id
    // becomes "toolu_mock_<n>". Returns the id used.
    QString queueToolUse(const QString &toolName, const QJsonObject &input,
                         const QString &toolUseId = {});
    // An HTTP error with an Anthropic error body {"type":"error","error":{type,message}} for the
    // next `times` requests. What the pinned CLI (2.1.329) does with it:
    //  - 401, 429, 500, 503, 529: retried 10 times with backoff (0.5 s, 1 s, 2 s ... ~38 s, about
    //    3 minutes in all), an {"type":"system","subtype":"api_retry"} line before each retry;
    //    CLAUDE_CODE_MAX_RETRIES=<n> in the CLI's environment caps that;
    //  - 403, 413: one request, the turn ends at once (result with is_error true);
    //  - 400: no retries, but up to 6 requests in ~1 s as the CLI drops betas and features;
    //  - 404: one more request, non-streaming (the mock answers that one as plain JSON).
    // Retry::No sends `x-should-retry: false`: then every status ends the turn after that
    // request (400 and 404 still make their extra requests). retry-after headers are ignored.
    enum class Retry { CliDecides, No, Yes };
    void queueError(int httpStatus, const QString &errorType, const QString &message, int times = 1,
                    Retry retry = Retry::CliDecides);
    // Accepts the request and never answers (until the client goes away).
    void queueHang();
    int pendingTurns() const { return int(m_queue.size()); }
    void clearQueue() { m_queue.clear(); }

    // Usage reported in message_start and message_delta of every answer from now on.
    void setUsage(int inputTokens, int outputTokens, int cacheRead = 0, int cacheCreation = 0);

    // --- Recorded POST /v1/messages requests (count_tokens, GET ... are otherRequests()) ---
    // All system text blocks joined with "\n" (the appended system prompt lands here).
    QString systemPromptOf(int i) const;
    // The newest user message's text blocks joined with "\n". The CLI puts <system-reminder>
    // blocks before the user's own text (match on the end, not on equality), and a role "system"
    // message (the environment description) after it, so this skips non-user messages.
    QString lastUserTextOf(int i) const;
    // Whether the newest user message holds a tool_result (for that id when one is given).
    bool hasToolResult(int i, const QString &toolUseId = {}) const;
    // The text of that tool_result (string content or text blocks joined), empty if none.
    QString toolResultTextOf(int i, const QString &toolUseId = {}) const;

private:
    void answer(Connection *conn, int index) override;
    QJsonObject otherAnswer(const QByteArray &path) const override;

    // A turn as scripted.
    struct Turn {
        enum Kind { Text, ToolUse, Error, Hang };
        Kind kind = Text;
        QString text;
        QStringList pieces; // explicit deltas (queueDeltas); empty: text split into `deltas`
        int deltas = 3;
        int delayMs = 0;
        QString toolName;
        QJsonObject input;
        QString toolUseId;
        int status = 200;
        QString errorType;
        Retry retry = Retry::CliDecides;
    };

    QList<QByteArray> sseEvents(const Turn &turn, const QString &id, const QString &model) const;
    QJsonObject usage(int outputTokens) const;

    QList<Turn> m_queue;
    int m_messageSeq = 0;
    int m_toolSeq = 0;
    int m_inputTokens = 12;
    int m_outputTokens = 6;
    int m_cacheRead = 0;
    int m_cacheCreation = 0;
};

} // namespace flotilla::test
