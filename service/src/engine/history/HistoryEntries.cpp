#include "history/HistoryEntries.h"

#include "history/HistoryWire.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace flotilla::history {

namespace {

int hexValue(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

// Any raw JSON value (validated by the scanner) -> QJsonValue.
QJsonValue parseValue(Span raw) {
    if (raw.isNull())
        return QJsonValue();
    QByteArray wrapped;
    wrapped.reserve(raw.size() + 2);
    wrapped.append('[').append(raw.b, raw.size()).append(']');
    return QJsonDocument::fromJson(wrapped).array().at(0);
}

QString contentBlocksText(const QJsonArray &blocks) {
    QStringList parts;
    for (const QJsonValue &v : blocks) {
        const QJsonObject o = v.toObject();
        const QString type = o.value(wire::key::Type).toString();
        // "input_text"/"output_text": Codex's content items (a function call's output may be a
        // list of them).
        if (type == QLatin1String("text") || type == QLatin1String("input_text") ||
            type == QLatin1String("output_text"))
            parts.append(o.value(QLatin1String("text")).toString());
        else if (type == QLatin1String("image"))
            parts.append(QStringLiteral("[image]"));
    }
    return parts.join(QLatin1Char('\n'));
}

// The tool input as JSON. An encoded one (Codex's arguments string) that is not valid JSON
// (a freeform tool's raw text) stays a string.
QJsonValue toolInput(const RawBlock &block) {
    if (block.value.isNull())
        return QJsonObject();
    QJsonValue raw = parseValue(block.value);
    if (!block.encodedInput || !raw.isString())
        return raw;
    const QJsonDocument doc = QJsonDocument::fromJson(raw.toString().toUtf8());
    if (doc.isObject())
        return doc.object();
    if (doc.isArray())
        return doc.array();
    return raw;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
qint64 daysFromCivil(qint64 y, unsigned m, unsigned d) {
    y -= m <= 2;
    const qint64 era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + qint64(doe) - 719468;
}

} // namespace

QString decodeJsonString(Span escaped) {
    if (escaped.isNull())
        return QString();
    const char *p = escaped.b;
    const char *const e = escaped.e;
    const char *run = p;
    QString out;
    // Most strings have no escapes: one UTF-8 conversion. Otherwise plain runs are converted in
    // one go and escapes appended as UTF-16 units (surrogate pairs then need no special case).
    while (p < e) {
        if (*p != '\\') {
            ++p;
            continue;
        }
        if (run == escaped.b && out.isEmpty())
            out.reserve(int(escaped.size()));
        out.append(QString::fromUtf8(run, p - run));
        if (e - p < 2)
            break;
        const char c = p[1];
        p += 2;
        switch (c) {
        case 'n':
            out.append(QLatin1Char('\n'));
            break;
        case 't':
            out.append(QLatin1Char('\t'));
            break;
        case 'r':
            out.append(QLatin1Char('\r'));
            break;
        case 'b':
            out.append(QLatin1Char('\b'));
            break;
        case 'f':
            out.append(QLatin1Char('\f'));
            break;
        case 'u':
            if (e - p >= 4) {
                const int unit = (hexValue(p[0]) << 12) | (hexValue(p[1]) << 8) |
                                 (hexValue(p[2]) << 4) | hexValue(p[3]);
                out.append(QChar(char16_t(unit)));
                p += 4;
            }
            break;
        default: // '"', '\\', '/'
            out.append(QLatin1Char(c));
        }
        run = p;
    }
    if (run == escaped.b)
        return QString::fromUtf8(escaped.b, escaped.size());
    out.append(QString::fromUtf8(run, e - run));
    return out;
}

qint64 parseTimestampMs(Span escaped) {
    // YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM|-HH:MM], the form the CLI writes (JS toISOString).
    const std::string_view s = escaped.view();
    if (escaped.isNull() || s.size() < 19)
        return -1;
    auto num = [&](size_t at, size_t n, int *out) {
        int v = 0;
        for (size_t i = at; i < at + n; ++i) {
            if (i >= s.size() || s[i] < '0' || s[i] > '9')
                return false;
            v = v * 10 + (s[i] - '0');
        }
        *out = v;
        return true;
    };
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    if (!num(0, 4, &y) || s[4] != '-' || !num(5, 2, &mo) || s[7] != '-' || !num(8, 2, &d) ||
        (s[10] != 'T' && s[10] != ' ') || !num(11, 2, &h) || s[13] != ':' || !num(14, 2, &mi) ||
        s[16] != ':' || !num(17, 2, &sec))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    size_t i = 19;
    int ms = 0;
    if (i < s.size() && s[i] == '.') {
        int digits = 0;
        for (++i; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
            if (digits < 3)
                ms = ms * 10 + (s[i] - '0');
        }
        if (digits == 0)
            return -1;
        for (; digits < 3; ++digits)
            ms *= 10;
    }
    qint64 offsetMinutes = 0;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        int oh = 0, om = 0;
        if (!num(i + 1, 2, &oh) || i + 3 >= s.size() || s[i + 3] != ':' || !num(i + 4, 2, &om))
            return -1;
        offsetMinutes = (s[i] == '-' ? -1 : 1) * (oh * 60 + om);
        i += 6;
    } else if (i < s.size() && s[i] == 'Z') {
        ++i;
    }
    if (i != s.size())
        return -1;
    const qint64 days = daysFromCivil(y, unsigned(mo), unsigned(d));
    return ((days * 24 + h) * 60 + mi - offsetMinutes) * 60'000 + qint64(sec) * 1000 + ms;
}

QString blockContent(const RawBlock &block) {
    switch (block.kind) {
    case BlockKind::Text:
        return decodeJsonString(block.text);
    case BlockKind::Image:
        return QStringLiteral("[image]");
    case BlockKind::ToolUse:
        if (block.value.isNull())
            return QStringLiteral("{}");
        if (block.encodedInput && *block.value.b == '"')
            return decodeJsonString({block.value.b + 1, block.value.e - 1});
        return QString::fromUtf8(block.value.b, block.value.size());
    case BlockKind::ToolResult: {
        if (block.value.isNull())
            return QString();
        if (*block.value.b == '"')
            return decodeJsonString({block.value.b + 1, block.value.e - 1});
        const QJsonValue v = parseValue(block.value);
        return v.isArray() ? contentBlocksText(v.toArray()) : QString();
    }
    }
    return QString();
}

QJsonObject makeEntry(const ScannedLine &line, int index, const QString &content,
                      int maxContentChars) {
    const RawBlock &block = line.blocks[index];
    QJsonObject o;
    const QString uuid = decodeJsonString(line.uuid);
    if (line.uuid.isNull())
        o.insert(key::Uuid, QJsonValue::Null);
    else
        o.insert(key::Uuid, index == 0 ? uuid : uuid + QLatin1Char(':') + QString::number(index));

    switch (block.kind) {
    case BlockKind::Text:
    case BlockKind::Image:
        o.insert(wire::key::Type,
                 line.role == LineRole::Assistant ? entrytype::Assistant : entrytype::User);
        break;
    case BlockKind::ToolUse:
        o.insert(wire::key::Type, entrytype::ToolUse);
        o.insert(wire::key::ToolName, decodeJsonString(block.name));
        // An input bigger than the cap (a Write of a whole file) is left out, like a long
        // content is cut: the entry says so, and content still starts with the input's JSON.
        if (block.value.size() <= maxContentChars)
            o.insert(wire::key::ToolInput, toolInput(block));
        else
            o.insert(key::Truncated, true);
        o.insert(key::ToolUseId, decodeJsonString(block.id));
        break;
    case BlockKind::ToolResult:
        o.insert(wire::key::Type, entrytype::ToolResult);
        o.insert(key::ToolUseId, decodeJsonString(block.id));
        if (block.isError)
            o.insert(key::IsError, true);
        break;
    }

    QString text = content.isNull() ? blockContent(block) : content;
    if (text.size() > maxContentChars) {
        o.insert(key::Truncated, true);
        o.insert(key::ContentLength, qint64(text.size()));
        // Never cut a surrogate pair in half.
        text.truncate(text.at(maxContentChars - 1).isHighSurrogate() ? maxContentChars - 1
                                                                     : maxContentChars);
    }
    o.insert(key::Content, text);
    const qint64 ms = parseTimestampMs(line.timestamp);
    o.insert(wire::key::Timestamp, ms >= 0 ? QJsonValue(ms) : QJsonValue(QJsonValue::Null));
    return o;
}

} // namespace flotilla::history
