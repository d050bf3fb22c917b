#include "http/RequestHeadParser.h"

#include "http/HeaderText.h"
#include "protocol/WireNames.h"

#include <QList>

#include <optional>

namespace flotilla {

namespace c = wire::code;

namespace {

bool isTokenChar(char ch) {
    // RFC 9110 tchar
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
        return true;
    return QByteArrayView("!#$%&'*+-.^_`|~").contains(ch);
}

bool isTokenView(QByteArrayView s) {
    if (s.isEmpty())
        return false;
    for (char ch : s) {
        if (!isTokenChar(ch))
            return false;
    }
    return true;
}

bool hasCtlView(QByteArrayView s) {
    for (char ch : s) {
        const auto u = static_cast<unsigned char>(ch);
        if ((u < 0x20 && u != '\t') || u == 0x7f)
            return true;
    }
    return false;
}

bool nameIs(QByteArrayView name, const char *lower) {
    return name.size() == qsizetype(qstrlen(lower)) &&
           qstrnicmp(name.data(), lower, name.size()) == 0;
}

Rejection bad(const QString &message, int status = 400, QLatin1String code = c::BadRequest) {
    return Rejection{status, code, message, {}};
}

// Lines of the head (views; a trailing CR dropped), up to the blank line.
QVarLengthArray<QByteArrayView, 32> splitLines(QByteArrayView head) {
    QVarLengthArray<QByteArrayView, 32> lines;
    qsizetype start = 0;
    for (qsizetype p = 0; p < head.size(); ++p) {
        if (head[p] != '\n')
            continue;
        QByteArrayView line = head.sliced(start, p - start);
        if (line.endsWith('\r'))
            line.chop(1);
        start = p + 1;
        if (line.isEmpty())
            break;
        lines.append(line);
    }
    return lines;
}

// Request line: METHOD SP target SP version, single spaces.
std::optional<Rejection> parseRequestLine(QByteArrayView line, const HeadLimits &limits,
                                          ParsedHead &out) {
    const qsizetype sp1 = line.indexOf(' ');
    const qsizetype sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
    if (sp2 < 0)
        return bad(QStringLiteral("malformed request line"));
    out.method = line.first(sp1);
    out.target = line.sliced(sp1 + 1, sp2 - sp1 - 1);
    out.version = line.sliced(sp2 + 1);
    if (out.version.contains(' ') || !isTokenView(out.method) || out.target.isEmpty() ||
        hasCtlView(out.target))
        return bad(QStringLiteral("malformed request line"));
    if (out.version != "HTTP/1.1" && out.version != "HTTP/1.0")
        return bad(QStringLiteral("only HTTP/1.0 and HTTP/1.1 are supported"), 505);
    if (out.target.size() > limits.maxTargetBytes)
        return bad(QStringLiteral("request target exceeds %1 bytes").arg(limits.maxTargetBytes),
                   414, c::UriTooLong);
    if (!out.target.startsWith('/'))
        return bad(QStringLiteral("request target must be an absolute path"));
    return std::nullopt;
}

} // namespace

bool ParsedHead::asksUpgrade() const {
    if (upgrade.isEmpty())
        return false;
    for (const QByteArray &p : connection.toByteArray().split(',')) {
        if (p.trimmed().compare("upgrade", Qt::CaseInsensitive) == 0)
            return true;
    }
    return false;
}

std::variant<ParsedHead, Rejection> parseRequestHead(QByteArrayView head,
                                                     const HeadLimits &limits) {
    const QVarLengthArray<QByteArrayView, 32> lines = splitLines(head);
    if (lines.isEmpty())
        return bad(QStringLiteral("empty request"));
    ParsedHead out;
    if (auto refusal = parseRequestLine(lines[0], limits, out))
        return *refusal;
    if (lines.size() - 1 > limits.maxHeaderCount)
        return bad(QStringLiteral("more than %1 header fields").arg(limits.maxHeaderCount), 431,
                   c::HeadersTooLarge);

    const std::pair<const char *, QByteArrayView *> singles[] = {
        {"host", &out.host},
        {"origin", &out.origin},
        {"content-type", &out.contentType},
        {"content-length", &out.contentLength},
        {"connection", &out.connection},
        {"upgrade", &out.upgrade},
    };
    for (qsizetype k = 1; k < lines.size(); ++k) {
        const QByteArrayView l = lines[k];
        const qsizetype colon = l.indexOf(':');
        if (l.startsWith(' ') || l.startsWith('\t') || colon <= 0 || !isTokenView(l.first(colon)) ||
            hasCtlView(l.sliced(colon + 1)))
            return bad(QStringLiteral("malformed header field on line %1").arg(k + 1));
        // A present but empty value is still present: the view points at the line's end.
        HeaderView h{l.first(colon), trimmedView(l.sliced(colon + 1))};
        if (!h.value.data())
            h.value = l.sliced(l.size());
        out.headers.append(h);
        bool single = false;
        for (const auto &[name, slot] : singles) {
            if (!nameIs(h.name, name))
                continue;
            if (slot->data())
                return bad(QStringLiteral("more than one %1 header").arg(QLatin1String(name)));
            *slot = h.value;
            single = true;
        }
        if (single)
            continue;
        if (nameIs(h.name, "transfer-encoding"))
            out.transferEncoding = h.value;
        else if (nameIs(h.name, "expect"))
            out.expect = h.value;
        else if (nameIs(h.name, "sec-fetch-site"))
            out.fetchSite = h.value;
    }
    if (out.version == "HTTP/1.1" && out.host.isEmpty())
        return bad(QStringLiteral("HTTP/1.1 request without Host header"));
    if (out.method == "CONNECT")
        return bad(QStringLiteral("CONNECT is not supported"), 405, c::MethodNotAllowed);
    return out;
}

std::optional<Rejection> frameBody(ParsedHead &head, qint64 maxBodyBytes) {
    // Both headers at once is a request-smuggling pattern: refuse it.
    if (!head.transferEncoding.isEmpty() && head.contentLength.data())
        return bad(QStringLiteral("both Transfer-Encoding and Content-Length"));
    head.bodyLength = 0;
    head.chunked = false;
    if (!head.transferEncoding.isEmpty()) {
        if (head.transferEncoding.compare("chunked", Qt::CaseInsensitive) != 0)
            return bad(QStringLiteral("only chunked transfer-encoding is supported"), 501);
        head.chunked = true;
    }
    if (head.contentLength.data()) {
        // One decimal value: no list, no sign, no spaces inside (RFC 9110 §8.6).
        const QByteArrayView v = head.contentLength;
        bool digits = !v.isEmpty() && v.size() <= 18;
        for (char ch : v)
            digits = digits && ch >= '0' && ch <= '9';
        if (!digits)
            return bad(QStringLiteral("malformed Content-Length"));
        head.bodyLength = v.toByteArray().toLongLong();
    }
    if (head.bodyLength > maxBodyBytes)
        return bad(QStringLiteral("request body of %1 bytes exceeds the limit of %2 bytes")
                       .arg(head.bodyLength)
                       .arg(maxBodyBytes),
                   413, c::PayloadTooLarge);
    return std::nullopt;
}

} // namespace flotilla
