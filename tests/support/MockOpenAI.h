#pragma once
// A scriptable stand-in for the OpenAI Responses API on loopback, for driving the real `codex`
// CLI (`codex app-server`) in tests. Every `POST /v1/responses` consumes the next scripted turn
// (text, a function call, an HTTP error, or a hang) and is answered as Server-Sent Events the way
// the real API streams them. Every request is recorded so tests can assert what the CLI sent.
//
// Point the CLI at it with codexEnvironment(home), which writes home/.codex/config.toml (a
// provider "mock" with base_url http://127.0.0.1:<port>/v1, wire_api "responses") the way a
// user's own config would, so the command line stays the product's. The mock lives in the test's
// thread: wait with QSignalSpy::wait / QTRY_* / QTest::qWaitFor, never with blocking calls.
//
// What the pinned CLI (0.169.0) sends and needs, verified against this mock:
//  - Only `POST /v1/responses` (no GET /v1/models, no WebSocket when a provider is configured),
//    `Authorization: Bearer <OPENAI_API_KEY>`, `"stream": true`, `"store": false`, no
//    `previous_response_id`: the whole conversation is resent in `input` on every request.
//  - No top-level `instructions`: the built-in prompt (or thread/start's `baseInstructions`, which
//    replaces it) is the first role "developer" message of `input`; `developerInstructions` is
//    the first input_text of the second developer message. A role "user" <environment_context>
//    message precedes the first user text. An unknown model name ("gpt-mock") only gets a
//    `warning` notification ("Model metadata ... not found") and no apply_patch tool: the tools
//    are exec_command, write_stdin, request_user_input, view_image, web_search and a few more.
//  - SSE it requires: `response.output_item.added` (without it no item/agentMessage/delta is
//    forwarded), `response.output_item.done` with the whole item (without it no agentMessage
//    item), `response.completed` whose `response` has an `id` (missing event or id: "stream
//    disconnected before completion", retried as below). `response.created` and `usage` are
//    optional (no usage: no thread/tokenUsage/updated); a delta needs only its `delta` field.
//  - usage {input_tokens, input_tokens_details.cached_tokens, output_tokens, total_tokens} becomes
//    tokenUsage.last/total {inputTokens, cachedInputTokens, outputTokens, totalTokens}.
//  - A function_call item is run and answered by a new request ending with a
//    {"type":"function_call_output","call_id","output"} item; `output` is "Chunk ID: ..\nWall
//    time: ..\nProcess exited with code N\n...Output:\n<stdout+stderr>", or "exec_command failed:
//    ... rejected by user" when declined.
//
// What it does with an HTTP error (queueError), per provider settings `request_max_retries`
// (default 4) and `stream_max_retries` (default 5), each settable with
// `-c model_providers.mock.<key>=N`:
//  - 500 (and other 5xx): each "stream attempt" retries the request itself request_max_retries
//    times silently (~0.2 s backoff), then reports an `error` notification {willRetry: true,
//    error.message "Reconnecting... n/5", codexErrorInfo.responseStreamDisconnected} and tries
//    again; in all (1+5)*(1+4) = 30 requests over ~25 s, then `error` {willRetry: false,
//    codexErrorInfo "internalServerError"} and turn/completed {turn.status "failed", turn.error}.
//    The mock's message is NOT shown: the CLI says "We're currently experiencing high demand".
//    With request_max_retries=1 and stream_max_retries=1: 4 requests, one willRetry notice.
//  - 400: one request, no retry: `error` {willRetry false, codexErrorInfo "other", message = the
//    raw response body} and a failed turn at once (~0.1 s).
//  - 401: retried like a broken stream (6 requests, ~6.5 s, "Reconnecting" notifications with
//    additionalDetails "unexpected status 401 Unauthorized: <message>, url: ..."), then failed
//    with codexErrorInfo.httpConnectionFailed.httpStatusCode 401 (1 request with no retries).
//  - 429 (no retry-after): one request, then failed at once with "exceeded retry limit, last
//    status: 429 Too Many Requests, request id: <x-request-id>"
//    (codexErrorInfo.responseTooManyFailedAttempts.httpStatusCode 429).

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
class MockOpenAI final : public MockHttpServer {
    Q_OBJECT

public:
    explicit MockOpenAI(QObject *parent = nullptr);
    ~MockOpenAI() override;

    QUrl baseUrl() const; // http://127.0.0.1:<port>/v1, the provider's base_url

    // The pinned CLI (FLOTILLA_TEST_CODEX_BIN).
    static QString codexBinary();
    // The provider config pointing at this mock, as written to config.toml.
    QString configToml() const;
    // Writes home/.codex/config.toml (configToml()) and returns a hermetic environment: the
    // system environment minus every OPENAI_*, CODEX_* and proxy variable, then HOME=home,
    // OPENAI_API_KEY=sk-test, NO_PROXY=127.0.0.1,localhost and TMPDIR=home/tmp. TMPDIR matters:
    // the CLI refuses to set up its helper binaries (codex-linux-sandbox) when its home is under
    // the temporary directory ("Refusing to create helper binaries under temporary dir"), and
    // then every sandboxed command fails with "bwrap: execvp codex-linux-sandbox". A test HOME
    // in /tmp is fine once TMPDIR points elsewhere. Returns an empty environment on I/O errors.
    QProcessEnvironment codexEnvironment(const QString &home) const;

    // --- Script: one turn per POST /v1/responses, in queue order ---
    // An assistant message whose text is split into `deltas` response.output_text.delta events;
    // with a delay the stream is written progressively (one event group per tick).
    void queueText(const QString &text, int deltas = 3, int delayMsBetweenDeltas = 0);
    // A function_call output item (e.g. name "exec_command", arguments {"cmd": "..."}). An empty
    // callId becomes "call_mock_<n>". Returns the call id used. A tool of an MCP server is a
    // function of its namespace: name "report_task", nameSpace "mcp__flotilla" (the flat name
    // "mcp__flotilla__report_task" is "unsupported call" to 0.169.0).
    QString queueFunctionCall(const QString &name, const QJsonObject &arguments,
                              const QString &callId = {}, const QString &nameSpace = {});
    // A custom_tool_call output item with free-form `input`: how models whose tool list offers
    // `apply_patch` as a custom tool (gpt-5.5 in the 0.169.0 catalog) edit files, e.g.
    // "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** End Patch\n". Returns the call id.
    QString queueCustomToolCall(const QString &name, const QString &input,
                                const QString &callId = {});
    // An HTTP error with an OpenAI error body {"error":{message,type,code}} for the next `times`
    // requests (what the CLI does with it: see the top of this file).
    void queueError(int httpStatus, const QString &message, int times = 1);
    // Accepts the request and never answers (until the client goes away).
    void queueHang();
    int pendingTurns() const { return int(m_queue.size()); }
    void clearQueue() { m_queue.clear(); }

    // Usage reported in response.completed of every answer from now on; total = input + output.
    void setUsage(int inputTokens, int outputTokens, int cachedTokens = 0);

    // --- Recorded POST /v1/responses requests (GET /v1/models ... are otherRequests()) ---
    // The newest role "user" message's input_text parts joined with "\n".
    QString lastUserTextOf(int i) const;
    // The top-level `instructions` (never sent by 0.169.0) then the text of every role
    // "developer" message of `input`, joined with "\n".
    QString instructionsOf(int i) const;
    bool hasFunctionCallOutput(int i, const QString &callId) const;
    // The `output` of that function_call_output item, empty if none.
    QString functionCallOutputOf(int i, const QString &callId) const;

private:
    void answer(Connection *conn, int index) override;
    QJsonObject otherAnswer(const QByteArray &path) const override;

    struct Turn {
        enum Kind { Text, FunctionCall, CustomToolCall, Error, Hang };
        Kind kind = Text;
        QString text; // the message, or the error message
        int deltas = 3;
        int delayMs = 0;
        QString name;
        QJsonObject arguments;
        QString input; // a custom tool call's free-form input
        QString callId;
        QString nameSpace; // a function call's namespace (an MCP server's tools)
        int status = 200;
    };

    QList<QByteArray> sseEvents(const Turn &turn, int index, const QString &model) const;
    QJsonObject usage() const;

    QList<Turn> m_queue;
    int m_callSeq = 0;
    int m_inputTokens = 12;
    int m_outputTokens = 6;
    int m_cachedTokens = 0;
};

} // namespace flotilla::test
