#pragma once
// The HTTP/1.1 request framing the loopback mocks (MockHttpServer, WebhookReceiver) need: one
// request taken off the front of a connection's buffer, Content-Length or chunked body. Lenient
// on purpose: the clients are the real CLIs and the service, and the mocks test them, not HTTP
// parsers.

#include <QByteArray>
#include <QHash>
#include <QList>

namespace flotilla::test {

struct MockHttpRequest {
    QByteArray method;
    QByteArray target;
    QByteArray version;
    QHash<QByteArray, QByteArray> headers; // lower-cased names
    QByteArray body;
    // "Connection: close", or HTTP/1.0 without keep-alive: answer, then close.
    bool closeAfter() const {
        const QByteArray connection = headers.value("connection").toLower();
        return connection == "close" || (version == "HTTP/1.0" && connection != "keep-alive");
    }
};

enum class HttpTake { Incomplete, Taken, TooLarge };

namespace detail {
// The chunked body starting at *pos; false until all of it (and the last chunk) is buffered.
inline bool readChunkedBody(const QByteArray &buffer, QByteArray *body, qsizetype *pos) {
    qsizetype p = *pos;
    for (;;) {
        const qsizetype eol = buffer.indexOf("\r\n", p);
        if (eol < 0)
            return false;
        bool ok = false;
        const qsizetype size =
            buffer.mid(p, eol - p).split(';').value(0).trimmed().toLongLong(&ok, 16);
        if (!ok)
            return false;
        p = eol + 2;
        if (size == 0) {
            const qsizetype end = buffer.indexOf("\r\n", p); // no trailers expected
            if (end < 0)
                return false;
            *pos = end + 2;
            return true;
        }
        if (buffer.size() < p + size + 2)
            return false;
        body->append(buffer.mid(p, size));
        p += size + 2;
    }
}
} // namespace detail

// Takes one complete request off the front of `buffer` into `out`.
inline HttpTake takeHttpRequest(QByteArray *buffer, MockHttpRequest *out) {
    const qsizetype headEnd = buffer->indexOf("\r\n\r\n");
    if (headEnd < 0)
        return buffer->size() > 1024 * 1024 ? HttpTake::TooLarge : HttpTake::Incomplete;
    const QList<QByteArray> lines = buffer->left(headEnd).split('\n');
    const QList<QByteArray> requestLine = lines.value(0).trimmed().split(' ');
    MockHttpRequest req;
    req.method = requestLine.value(0);
    req.target = requestLine.value(1);
    req.version = requestLine.value(2);
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const qsizetype colon = lines.at(i).indexOf(':');
        if (colon > 0)
            req.headers.insert(lines.at(i).left(colon).trimmed().toLower(),
                               lines.at(i).mid(colon + 1).trimmed());
    }
    qsizetype consumed = headEnd + 4;
    if (req.headers.value("transfer-encoding").toLower().contains("chunked")) {
        if (!detail::readChunkedBody(*buffer, &req.body, &consumed))
            return HttpTake::Incomplete;
    } else {
        const qsizetype length = req.headers.value("content-length").toLongLong();
        if (buffer->size() < consumed + length)
            return HttpTake::Incomplete;
        req.body = buffer->mid(consumed, length);
        consumed += length;
    }
    buffer->remove(0, consumed);
    *out = std::move(req);
    return HttpTake::Taken;
}

} // namespace flotilla::test
