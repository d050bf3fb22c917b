// libFuzzer target: the request head as ConnectionGuard judges it (http/RequestHeadParser), without
// sockets. The input is the head's bytes; a blank line is added when it has none (the guard only
// parses a complete head).
//
// Invariants of an accepted head: the request line is METHOD SP /target SP HTTP/1.0|1.1 with a
// token method; no field the guard and Qt's parser must read alike (Host, Origin, Content-Type,
// Content-Length, Connection, Upgrade) appears twice, in any case; no field value holds a control
// character; an HTTP/1.1 head has a Host; at most maxHeaderCount fields; the views point into the
// input. Of a framed body: never both chunked and a Content-Length, a length of decimal digits
// within the limit. A refusal carries a 4xx/5xx status and a message.

#include "FuzzSupport.h"

#include "http/RequestHeadParser.h"

#include <QByteArray>
#include <QList>

using namespace flotilla;

namespace {

constexpr HeadLimits kLimits{8 * 1024, 64};
constexpr qint64 kMaxBody = 1 << 20;

bool isInside(QByteArrayView part, const QByteArray &whole) {
    return part.isNull() || (part.data() >= whole.constData() &&
                             part.data() + part.size() <= whole.constData() + whole.size());
}

// Header lines of the head as the fuzzer wrote them (after the request line, before the blank).
QList<QByteArray> fieldLines(const QByteArray &head) {
    QList<QByteArray> out;
    const QList<QByteArray> lines = head.split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) {
        QByteArray l = lines[i];
        if (l.endsWith('\r'))
            l.chop(1);
        if (l.isEmpty())
            break;
        out << l;
    }
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    QByteArray head(reinterpret_cast<const char *>(data), qsizetype(size));
    if (!head.contains("\n\n") && !head.contains("\n\r\n"))
        head += "\r\n\r\n";
    auto parsed = parseRequestHead(head, kLimits);
    if (const auto *refusal = std::get_if<Rejection>(&parsed)) {
        FUZZ_CHECK(refusal->status >= 400 && refusal->status < 600, "refusal status");
        FUZZ_CHECK(!refusal->message.isEmpty(), "refusal message");
        return 0;
    }
    ParsedHead &h = std::get<ParsedHead>(parsed);
    FUZZ_CHECK(h.target.startsWith('/'), "target");
    FUZZ_CHECK(h.version == "HTTP/1.1" || h.version == "HTTP/1.0", "version");
    FUZZ_CHECK(!h.method.isEmpty() && h.method != "CONNECT", "method");
    FUZZ_CHECK(h.headers.size() <= kLimits.maxHeaderCount, "header count");
    FUZZ_CHECK(h.version != "HTTP/1.1" || !h.host.isEmpty(), "HTTP/1.1 without Host");
    for (const HeaderView &f : h.headers) {
        FUZZ_CHECK(isInside(f.name, head) && isInside(f.value, head), "views into the head");
        for (char ch : f.value) {
            const auto u = static_cast<unsigned char>(ch);
            FUZZ_CHECK(u >= 0x20 || u == '\t', "control character in a value");
            FUZZ_CHECK(u != 0x7f, "DEL in a value");
        }
    }
    // Counted on the raw lines, independently of the parser's own bookkeeping.
    const QList<QByteArray> lines = fieldLines(head);
    for (const char *single :
         {"host", "origin", "content-type", "content-length", "connection", "upgrade"}) {
        int seen = 0;
        for (const QByteArray &l : lines) {
            const qsizetype colon = l.indexOf(':');
            seen += colon > 0 && l.left(colon).toLower() == single;
        }
        FUZZ_CHECK(seen <= 1, single);
    }
    if (frameBody(h, kMaxBody))
        return 0;
    FUZZ_CHECK(!(h.chunked && !h.contentLength.isNull()), "chunked and a length");
    FUZZ_CHECK(h.bodyLength >= 0 && h.bodyLength <= kMaxBody, "body length");
    for (char ch : h.contentLength)
        FUZZ_CHECK(ch >= '0' && ch <= '9', "length digits");
    return 0;
}
