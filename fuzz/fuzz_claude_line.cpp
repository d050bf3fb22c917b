// libFuzzer target: one stdout line of the Claude Code CLI (stream-json) -> parseClaudeLine.
// Invariants: `malformed` is set exactly when the line is neither blank nor a JSON object (Qt's
// parser decides), a malformed line yields no events, every event is one a line of that "type"
// can produce, and claudeUserMessage() of the input text is one line that decodes back to it.

#include "FuzzSupport.h"

#include "agents/claude/ClaudeEvents.h"

#include <QJsonDocument>
#include <QJsonObject>

using flotilla::AgentEvent;
using Kind = AgentEvent::Kind;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // fromRawData: ASan sees a read past the input as a heap overflow (libFuzzer's buffer is
    // exactly `size` bytes).
    const QByteArray line =
        QByteArray::fromRawData(reinterpret_cast<const char *>(data), qsizetype(size));
    bool malformed = true;
    const QList<AgentEvent> events = flotilla::parseClaudeLine(line, &malformed);

    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
    const bool isObject = err.error == QJsonParseError::NoError && doc.isObject();
    const bool blank = line.trimmed().isEmpty();
    FUZZ_CHECK(malformed == (!blank && !isObject), "malformed flag disagrees with the JSON parser");
    if (malformed || blank)
        FUZZ_CHECK(events.isEmpty(), "events from a blank or malformed line");

    const QString type =
        isObject ? doc.object().value(QLatin1String("type")).toString() : QString();
    int results = 0;
    for (const AgentEvent &e : events) {
        switch (e.kind) {
        case Kind::SessionStarted:
        case Kind::ApiRetry:
        case Kind::Compacting:
            FUZZ_CHECK(type == QLatin1String("system"), "system event from another line type");
            break;
        case Kind::TextDelta:
            FUZZ_CHECK(type == QLatin1String("stream_event"), "text delta from another type");
            FUZZ_CHECK(!e.text.isEmpty(), "empty text delta");
            break;
        case Kind::ToolUse:
        case Kind::Usage:
            FUZZ_CHECK(type == QLatin1String("assistant"), "tool use/usage from another type");
            break;
        case Kind::ToolResult:
            FUZZ_CHECK(type == QLatin1String("user"), "tool result from another type");
            break;
        case Kind::TurnEnded:
            FUZZ_CHECK(type == QLatin1String("result"), "result from another type");
            ++results;
            break;
        }
        FUZZ_CHECK(e.usage.contextTokens >= 0 && e.usage.inputTokens >= 0 &&
                       e.usage.outputTokens >= 0,
                   "negative or overflowed token counts");
    }
    FUZZ_CHECK(results <= 1, "more than one result event for one line");
    if (type != QLatin1String("assistant") && type != QLatin1String("user"))
        FUZZ_CHECK(events.size() <= 1, "several events from a single-event line type");

    // What we write to the CLI's stdin: one line, whatever the text, that reads back the same.
    const QString text = QString::fromUtf8(line);
    const QByteArray message = flotilla::claudeUserMessage(text);
    FUZZ_CHECK(message.endsWith('\n') && message.count('\n') == 1, "user message is not one line");
    const QJsonObject back = QJsonDocument::fromJson(message).object();
    FUZZ_CHECK(back.value(QLatin1String("message")).toObject().value(QLatin1String("content")) ==
                   text,
               "user message does not round-trip");
    bool messageMalformed = true;
    const QList<AgentEvent> echo = flotilla::parseClaudeLine(message, &messageMalformed);
    FUZZ_CHECK(!messageMalformed && echo.isEmpty(), "our own user line parses as events");
    return 0;
}
