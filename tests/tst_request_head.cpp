// The request-head parser on its own (http/RequestHeadParser): one table row per accepted shape
// and per refusal, without a socket. What a refusal looks like on the wire is
// tst_http_hardening's; here each rule of the parser is pinned to its status, code and message.

#include "http/RequestHeadParser.h"

#include <QTest>

using namespace flotilla;

namespace {

constexpr qint64 kMaxBody = 1024;

QByteArray head(const QByteArray &requestLine, const QList<QByteArray> &fields) {
    QByteArray out = requestLine + "\r\n";
    for (const QByteArray &f : fields)
        out += f + "\r\n";
    return out + "\r\n";
}

// "ok" or "<status> <code>: <message>" for a head parsed and framed.
QString outcome(const QByteArray &bytes, ParsedHead *parsed = nullptr) {
    HeadLimits limits;
    limits.maxTargetBytes = 64;
    limits.maxHeaderCount = 4;
    auto result = parseRequestHead(bytes, limits);
    if (const auto *r = std::get_if<Rejection>(&result))
        return QStringLiteral("%1 %2: %3").arg(r->status).arg(r->code).arg(r->message);
    auto &h = std::get<ParsedHead>(result);
    if (auto r = frameBody(h, kMaxBody))
        return QStringLiteral("%1 %2: %3").arg(r->status).arg(r->code).arg(r->message);
    if (parsed)
        *parsed = h;
    return QStringLiteral("ok");
}

} // namespace

class TestRequestHead : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void rules_data();
    void rules();
    void fieldsAreViewsOfTheHead();
    void framing_data();
    void framing();
    void upgrade_data();
    void upgrade();
};

void TestRequestHead::rules_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");
    const QByteArray host = "Host: 127.0.0.1:5174";
    auto row = [](const char *name, const QByteArray &bytes, const char *expected) {
        QTest::newRow(name) << bytes << QString::fromLatin1(expected);
    };
    row("get", head("GET /api/health HTTP/1.1", {host}), "ok");
    row("http/1.0 without host", head("GET / HTTP/1.0", {}), "ok");
    row("empty value is present", head("GET / HTTP/1.1", {host, "X-Empty:"}), "ok");
    row("empty request", "", "400 bad_request: empty request");
    row("one word", head("GET", {host}), "400 bad_request: malformed request line");
    row("space in version", head("GET / HTTP/1.1 x", {host}),
        "400 bad_request: malformed request line");
    row("method not a token", head("G(T / HTTP/1.1", {host}),
        "400 bad_request: malformed request line");
    row("control in target", head("GET /a\x01 HTTP/1.1", {host}),
        "400 bad_request: malformed request line");
    row("http/2", head("GET / HTTP/2.0", {host}),
        "505 bad_request: only HTTP/1.0 and HTTP/1.1 are supported");
    row("target too long", head("GET /" + QByteArray(64, 'a') + " HTTP/1.1", {host}),
        "414 uri_too_long: request target exceeds 64 bytes");
    row("absolute form", head("GET http://evil/ HTTP/1.1", {host}),
        "400 bad_request: request target must be an absolute path");
    row("too many fields", head("GET / HTTP/1.1", {host, "A: 1", "B: 2", "C: 3", "D: 4"}),
        "431 headers_too_large: more than 4 header fields");
    row("obsolete line folding", head("GET / HTTP/1.1", {host, " folded"}),
        "400 bad_request: malformed header field on line 3");
    row("no colon", head("GET / HTTP/1.1", {host, "NoColon"}),
        "400 bad_request: malformed header field on line 3");
    row("space before colon", head("GET / HTTP/1.1", {host, "Bad Name: x"}),
        "400 bad_request: malformed header field on line 3");
    row("control in value", head("GET / HTTP/1.1", {host, "X: a\x7f"}),
        "400 bad_request: malformed header field on line 3");
    row("two hosts", head("GET / HTTP/1.1", {host, "host: evil"}),
        "400 bad_request: more than one host header");
    row("two origins", head("GET / HTTP/1.1", {host, "Origin: a", "ORIGIN: b"}),
        "400 bad_request: more than one origin header");
    row("two content types", head("POST / HTTP/1.1", {host, "Content-Type: a", "Content-Type: b"}),
        "400 bad_request: more than one content-type header");
    row("two lengths", head("POST / HTTP/1.1", {host, "Content-Length: 1", "Content-Length: 1"}),
        "400 bad_request: more than one content-length header");
    row("two connections", head("GET / HTTP/1.1", {host, "Connection: a", "Connection: b"}),
        "400 bad_request: more than one connection header");
    row("two upgrades", head("GET / HTTP/1.1", {host, "Upgrade: a", "Upgrade: b"}),
        "400 bad_request: more than one upgrade header");
    row("1.1 without host", head("GET / HTTP/1.1", {"Accept: */*"}),
        "400 bad_request: HTTP/1.1 request without Host header");
    row("connect", head("CONNECT /x HTTP/1.1", {host}),
        "405 method_not_allowed: CONNECT is not supported");
    row("length and chunked",
        head("POST / HTTP/1.1", {host, "Content-Length: 3", "Transfer-Encoding: chunked"}),
        "400 bad_request: both Transfer-Encoding and Content-Length");
    row("gzip coding", head("POST / HTTP/1.1", {host, "Transfer-Encoding: gzip"}),
        "501 bad_request: only chunked transfer-encoding is supported");
    row("length list", head("POST / HTTP/1.1", {host, "Content-Length: 3, 3"}),
        "400 bad_request: malformed Content-Length");
    row("signed length", head("POST / HTTP/1.1", {host, "Content-Length: +3"}),
        "400 bad_request: malformed Content-Length");
    row("empty length", head("POST / HTTP/1.1", {host, "Content-Length:"}),
        "400 bad_request: malformed Content-Length");
    row("19 digits", head("POST / HTTP/1.1", {host, "Content-Length: 1000000000000000000"}),
        "400 bad_request: malformed Content-Length");
    row("over the body limit", head("POST / HTTP/1.1", {host, "Content-Length: 1025"}),
        "413 payload_too_large: request body of 1025 bytes exceeds the limit of 1024 bytes");
}

void TestRequestHead::rules() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    QCOMPARE(outcome(bytes), expected);
}

void TestRequestHead::fieldsAreViewsOfTheHead() {
    const QByteArray bytes =
        head("POST /api/agents?x=1 HTTP/1.1",
             {"Host:  127.0.0.1:5174 ", "Origin: http://127.0.0.1:5174",
              "Sec-Fetch-Site: same-origin", "Content-Type: application/json"});
    ParsedHead h;
    QCOMPARE(outcome(bytes, &h), QStringLiteral("ok"));
    QCOMPARE(h.method, QByteArrayView("POST"));
    QCOMPARE(h.target, QByteArrayView("/api/agents?x=1"));
    QCOMPARE(h.version, QByteArrayView("HTTP/1.1"));
    QCOMPARE(h.host, QByteArrayView("127.0.0.1:5174")); // trimmed
    QCOMPARE(h.origin, QByteArrayView("http://127.0.0.1:5174"));
    QCOMPARE(h.fetchSite, QByteArrayView("same-origin"));
    QCOMPARE(h.contentType, QByteArrayView("application/json"));
    QCOMPARE(h.headers.size(), 4);
    // Views into the caller's buffer: nothing was copied.
    QVERIFY(h.host.data() > bytes.constData() && h.host.data() < bytes.constData() + bytes.size());
    QVERIFY(h.contentLength.isNull());
}

void TestRequestHead::framing_data() {
    QTest::addColumn<QList<QByteArray>>("fields");
    QTest::addColumn<qint64>("length");
    QTest::addColumn<bool>("chunked");
    QTest::newRow("no body") << QList<QByteArray>{} << qint64(0) << false;
    QTest::newRow("length") << QList<QByteArray>{"Content-Length: 42"} << qint64(42) << false;
    QTest::newRow("at the limit") << QList<QByteArray>{"Content-Length: 1024"} << kMaxBody << false;
    QTest::newRow("chunked") << QList<QByteArray>{"Transfer-Encoding: Chunked"} << qint64(0)
                             << true;
}

void TestRequestHead::framing() {
    QFETCH(QList<QByteArray>, fields);
    QFETCH(qint64, length);
    QFETCH(bool, chunked);
    fields.prepend("Host: x");
    const QByteArray bytes = head("POST /api/x HTTP/1.1", fields); // the views in `h` point into it
    ParsedHead h;
    QCOMPARE(outcome(bytes, &h), QStringLiteral("ok"));
    QCOMPARE(h.bodyLength, length);
    QCOMPARE(h.chunked, chunked);
}

void TestRequestHead::upgrade_data() {
    QTest::addColumn<QList<QByteArray>>("fields");
    QTest::addColumn<bool>("upgrade");
    QTest::newRow("websocket") << QList<QByteArray>{"Connection: Upgrade", "Upgrade: websocket"}
                               << true;
    QTest::newRow("in a list") << QList<QByteArray>{"Connection: keep-alive, upgrade",
                                                    "Upgrade: websocket"}
                               << true;
    QTest::newRow("no connection token")
        << QList<QByteArray>{"Connection: keep-alive", "Upgrade: websocket"} << false;
    QTest::newRow("no upgrade field") << QList<QByteArray>{"Connection: upgrade"} << false;
}

void TestRequestHead::upgrade() {
    QFETCH(QList<QByteArray>, fields);
    QFETCH(bool, upgrade);
    fields.prepend("Host: x");
    const QByteArray bytes = head("GET /ws HTTP/1.1", fields); // the views in `h` point into it
    ParsedHead h;
    QCOMPARE(outcome(bytes, &h), QStringLiteral("ok"));
    QCOMPARE(h.asksUpgrade(), upgrade);
}

QTEST_GUILESS_MAIN(TestRequestHead)
#include "tst_request_head.moc"
