// libFuzzer target: stdout of `codex app-server` (JSON-RPC 2.0, one object per line) ->
// codex::parseLine, and every notification -> codex::eventsOf with one TurnState across the
// input's lines, as CodexProcess::onLine does. The input is split at '\n' like LineProcess
// splits the CLI's output (a last line without newline counts too).
//
// Invariants:
//  - the classification agrees with a plain model of JSON-RPC over Qt's parser: a Response,
//    ErrorResponse or ServerRequest has a numeric or string id (the line's), a ServerRequest or
//    Notification a non-empty method, an ErrorResponse a message;
//  - every event is one its method can produce (at most one per notification); token counts
//    are >= 0 and a turn's sums never decrease; an error that is retried counts the attempts;
//    turn/completed reports the turn's usage and resets the state (usage zero, no text, no
//    error, no retries); a method we do not map leaves the state alone;
//  - request(), notification(), response() and errorResponse() give one line ending in exactly
//    one '\n' that parseLine reads back as the same type, id, method and params/result, both
//    for what the server sent and for the raw input as method or message text.

#include "FuzzSupport.h"

#include "agents/codex/CodexEvents.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <iterator>

using flotilla::AgentEvent;
using flotilla::TokenUsage;
using Kind = AgentEvent::Kind;
namespace codex = flotilla::codex;
using Type = codex::Message::Type;

namespace {

// What parseLine should make of a line: JSON-RPC 2.0 as the server uses it.
Type expectedType(const QByteArray &line) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        return Type::Malformed;
    const QJsonObject o = doc.object();
    const QJsonValue id = o.value(QLatin1String("id"));
    const bool hasId = id.isDouble() || id.isString();
    if (!o.value(QLatin1String("method")).toString().isEmpty())
        return hasId ? Type::ServerRequest : Type::Notification;
    if (hasId && o.contains(QLatin1String("error")))
        return Type::ErrorResponse;
    if (hasId && o.contains(QLatin1String("result")))
        return Type::Response;
    return Type::Malformed;
}

bool nonNegative(const TokenUsage &u) {
    return u.inputTokens >= 0 && u.outputTokens >= 0 && u.contextTokens >= 0 &&
           u.contextWindow >= 0;
}

bool sameUsage(const TokenUsage &a, const TokenUsage &b) {
    return a.inputTokens == b.inputTokens && a.outputTokens == b.outputTokens &&
           a.contextTokens == b.contextTokens && a.contextWindow == b.contextWindow;
}

bool sameState(const codex::TurnState &a, const codex::TurnState &b) {
    return a.lastAgentText == b.lastAgentText && a.lastError == b.lastError &&
           a.retries == b.retries && sameUsage(a.usage, b.usage);
}

bool isOneLine(const QByteArray &out) {
    return out.endsWith('\n') && out.count('\n') == 1;
}

// One line we write: a single '\n' at its end, and read back as `type` with the same id.
codex::Message readBack(const QByteArray &out, Type type, const QJsonValue &id) {
    FUZZ_CHECK(isOneLine(out), "written message is not exactly one line");
    codex::Message back = codex::parseLine(out);
    FUZZ_CHECK(back.type == type, "written message reads back as another type");
    FUZZ_CHECK(back.id == id, "written message reads back with another id");
    return back;
}

void checkRoundTrips(const codex::Message &m, const QString &text) {
    if (m.type == Type::Response || m.type == Type::ErrorResponse ||
        m.type == Type::ServerRequest) {
        // Answering the server echoes its id, whatever it was.
        const codex::Message r = readBack(codex::response(m.id, m.result), Type::Response, m.id);
        FUZZ_CHECK(r.result == m.result, "response result does not round-trip");
        const codex::Message e =
            readBack(codex::errorResponse(m.id, -32601, text), Type::ErrorResponse, m.id);
        FUZZ_CHECK(text.isEmpty() || e.errorMessage == text,
                   "error response message does not round-trip");
    }
    if (m.type == Type::ServerRequest || m.type == Type::Notification) {
        const int id = m.id.toInt();
        const codex::Message q =
            readBack(codex::request(id, m.method, m.params), Type::ServerRequest, id);
        FUZZ_CHECK(q.method == m.method && q.params == m.params, "request does not round-trip");
        const codex::Message n = readBack(codex::notification(m.method, m.params),
                                          Type::Notification, QJsonValue(QJsonValue::Undefined));
        FUZZ_CHECK(n.method == m.method && n.params == m.params,
                   "notification does not round-trip");
    }
    if (!text.isEmpty()) { // arbitrary text as the method
        const codex::Message q = readBack(codex::request(7, text, {}), Type::ServerRequest, 7);
        FUZZ_CHECK(q.method == text && q.params.isEmpty(), "request method does not round-trip");
        const codex::Message n = readBack(codex::notification(text), Type::Notification,
                                          QJsonValue(QJsonValue::Undefined));
        FUZZ_CHECK(n.method == text, "notification method does not round-trip");
    }
}

void checkEvents(const codex::Message &m, const codex::TurnState &before,
                 const codex::TurnState &after, const QList<AgentEvent> &events) {
    FUZZ_CHECK(events.size() <= 1, "more than one event for one notification");
    FUZZ_CHECK(nonNegative(after.usage), "negative or overflowed token counts in the turn state");
    FUZZ_CHECK((after.usage.inputTokens >= before.usage.inputTokens &&
                after.usage.outputTokens >= before.usage.outputTokens) ||
                   m.method == QLatin1String("turn/completed"),
               "a turn's token sums went down");
    const QString &method = m.method;
    const QJsonObject item = m.params.value(QLatin1String("item")).toObject();
    for (const AgentEvent &e : events) {
        FUZZ_CHECK(nonNegative(e.usage), "negative or overflowed token counts in an event");
        switch (e.kind) {
        case Kind::TextDelta:
            FUZZ_CHECK(method == QLatin1String("item/agentMessage/delta"), "delta from elsewhere");
            FUZZ_CHECK(!e.text.isEmpty(), "empty text delta");
            break;
        case Kind::ToolUse:
            FUZZ_CHECK(method == QLatin1String("item/started"), "tool use from elsewhere");
            FUZZ_CHECK(e.toolName == QLatin1String(codex::kCommandTool) ||
                           e.toolName == QLatin1String(codex::kFileChangeTool),
                       "tool use of an unknown tool");
            FUZZ_CHECK(e.toolName == item.value(QLatin1String("type")).toString(),
                       "tool name is not the item's type");
            break;
        case Kind::ToolResult: {
            FUZZ_CHECK(method == QLatin1String("item/completed"), "tool result from elsewhere");
            const QString status = item.value(QLatin1String("status")).toString();
            if (status != QLatin1String("completed"))
                FUZZ_CHECK(e.isError, "a tool that did not complete is not an error");
            if (status == QLatin1String("declined"))
                FUZZ_CHECK(!e.toolOutput.isEmpty(), "a declined tool without output");
            break;
        }
        case Kind::Usage:
            FUZZ_CHECK(method == QLatin1String("thread/tokenUsage/updated"), "usage elsewhere");
            FUZZ_CHECK(e.usage.contextTokens == after.usage.contextTokens &&
                           e.usage.contextWindow == after.usage.contextWindow,
                       "usage event and turn state disagree");
            break;
        case Kind::ApiRetry:
            FUZZ_CHECK(method == QLatin1String("error"), "retry from elsewhere");
            FUZZ_CHECK(e.attempt == before.retries + 1 && after.retries == e.attempt,
                       "retry attempts not counted");
            break;
        case Kind::TurnEnded:
            FUZZ_CHECK(method == QLatin1String("turn/completed"), "turn end from elsewhere");
            FUZZ_CHECK(sameUsage(e.usage, before.usage), "turn end does not report the turn");
            FUZZ_CHECK(sameState(after, codex::TurnState()), "turn end does not reset the state");
            FUZZ_CHECK(!e.isError || !e.text.isEmpty(), "failed turn without an error text");
            FUZZ_CHECK(e.isError || e.text == before.lastAgentText, "final answer is not the last");
            break;
        case Kind::SessionStarted:
        case Kind::Compacting:
            FUZZ_CHECK(false, "event kind Codex notifications never produce");
            break;
        }
    }
    if (method == QLatin1String("thread/tokenUsage/updated") ||
        method == QLatin1String("turn/completed"))
        FUZZ_CHECK(events.size() == 1, "usage or turn end without its event");
    static const QLatin1String stateful[] = {
        QLatin1String("item/completed"), QLatin1String("thread/tokenUsage/updated"),
        QLatin1String("error"), QLatin1String("turn/completed")};
    if (std::none_of(std::begin(stateful), std::end(stateful),
                     [&](QLatin1String s) { return method == s; }))
        FUZZ_CHECK(sameState(before, after), "a stateless notification changed the turn state");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // fromRawData: ASan sees a read past the input as a heap overflow (libFuzzer's buffer is
    // exactly `size` bytes).
    const QByteArray input =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    codex::TurnState state;
    qsizetype start = 0;
    while (start < input.size()) {
        qsizetype nl = input.indexOf('\n', start);
        if (nl < 0)
            nl = input.size();
        const QByteArray line = QByteArray::fromRawData(input.constData() + start, nl - start);
        start = nl + 1;

        const codex::Message m = codex::parseLine(line);
        FUZZ_CHECK(m.type == expectedType(line), "classification disagrees with JSON-RPC");
        if (m.type == Type::Response || m.type == Type::ErrorResponse ||
            m.type == Type::ServerRequest)
            FUZZ_CHECK(m.id.isDouble() || m.id.isString(), "id is neither number nor string");
        if (m.type == Type::ServerRequest || m.type == Type::Notification)
            FUZZ_CHECK(!m.method.isEmpty(), "request or notification without a method");
        if (m.type == Type::ErrorResponse)
            FUZZ_CHECK(!m.errorMessage.isEmpty(), "error response without a message");
        if (m.type == Type::Notification) {
            const codex::TurnState before = state;
            const QList<AgentEvent> events = codex::eventsOf(m.method, m.params, &state);
            checkEvents(m, before, state, events);
        }
        checkRoundTrips(m, QString::fromUtf8(line));
    }
    return 0;
}
