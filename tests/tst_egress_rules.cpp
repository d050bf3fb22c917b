// The pure half of the network allow-list proxy (sandbox/EgressRules.h): an agent's allowHosts
// as rules, which hosts and ports they let through (wildcards, ports, IP literals, no DNS), and
// how a proxy request head is read and rewritten for the upstream.

#include "sandbox/EgressRules.h"

#include <QTest>

using namespace flotilla;

class TestEgressRules : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parsesRules_data();
    void parsesRules();
    void matchesHosts_data();
    void matchesHosts();
    void parsesRequests_data();
    void parsesRequests();
    void answersInPlainText();
};

void TestEgressRules::parsesRules_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("host") << "Example.ORG"
                          << "example.org" << -1;
    QTest::newRow("host:port") << "api.example.org:443"
                               << "api.example.org" << 443;
    QTest::newRow("wildcard:port") << "*.Example.test:8080"
                                   << "*.example.test" << 8080;
    QTest::newRow("ip") << "127.0.0.1:80"
                        << "127.0.0.1" << 80;
    QTest::newRow("v6") << "[::1]:443"
                        << "::1" << 443;
    QTest::newRow("port out of range matches nothing") << "a.test:99999"
                                                       << "a.test" << 0;
}

void TestEgressRules::parsesRules() {
    QFETCH(QString, text);
    QFETCH(QString, host);
    QFETCH(int, port);
    const EgressRule rule = parseEgressRule(text);
    QCOMPARE(rule.host, host);
    QCOMPARE(rule.port, port);
}

void TestEgressRules::matchesHosts_data() {
    QTest::addColumn<QStringList>("rules");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("allowed");
    const QStringList wild{QStringLiteral("*.example.test")};
    QTest::newRow("wildcard: subdomain") << wild << "a.example.test" << 443 << true;
    QTest::newRow("wildcard: deeper") << wild << "b.a.example.test" << 80 << true;
    QTest::newRow("wildcard: not the apex") << wild << "example.test" << 443 << false;
    QTest::newRow("wildcard: not a longer name") << wild << "badexample.test" << 443 << false;
    QTest::newRow("wildcard: case") << wild << "A.Example.TEST" << 443 << true;
    const QStringList exact{QStringLiteral("api.test:443"), QStringLiteral("127.0.0.1")};
    QTest::newRow("exact with port") << exact << "api.test" << 443 << true;
    QTest::newRow("exact, other port") << exact << "api.test" << 80 << false;
    QTest::newRow("exact, not a subdomain") << exact << "x.api.test" << 443 << false;
    QTest::newRow("ip, any port") << exact << "127.0.0.1" << 8080 << true;
    QTest::newRow("ip literally: no other spelling") << exact << "127.1" << 8080 << false;
    QTest::newRow("empty list") << QStringList() << "api.test" << 443 << false;
}

void TestEgressRules::matchesHosts() {
    QFETCH(QStringList, rules);
    QFETCH(QString, host);
    QFETCH(int, port);
    QFETCH(bool, allowed);
    QList<EgressRule> parsed;
    for (const QString &r : rules)
        parsed.append(parseEgressRule(r));
    QCOMPARE(egressAllows(parsed, host, port), allowed);
}

void TestEgressRules::parsesRequests_data() {
    QTest::addColumn<QByteArray>("head");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::addColumn<QByteArray>("upstream");
    const int connect = int(EgressRequest::Kind::Connect);
    const int forward = int(EgressRequest::Kind::Forward);
    QTest::newRow("CONNECT") << QByteArray("CONNECT Api.Test:443 HTTP/1.1\r\nHost: x\r\n\r\n")
                             << connect << "api.test" << 443 << QByteArray();
    QTest::newRow("CONNECT v6") << QByteArray("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n") << connect
                                << "::1" << 8443 << QByteArray();
    QTest::newRow("GET, proxy headers dropped")
        << QByteArray("GET http://a.test:8080/x?y=1 HTTP/1.1\r\nHost: a.test:8080\r\n"
                      "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eDp5\r\n"
                      "Connection: keep-alive\r\nAccept: */*\r\n\r\n")
        << forward << "a.test" << 8080
        << QByteArray("GET /x?y=1 HTTP/1.1\r\nHost: a.test:8080\r\nAccept: */*\r\n"
                      "Connection: close\r\n\r\n");
    QTest::newRow("no path, default port")
        << QByteArray("HEAD HTTP://a.test HTTP/1.0\r\n\r\n") << forward << "a.test" << 80
        << QByteArray("HEAD / HTTP/1.0\r\nConnection: close\r\n\r\n");
    QTest::newRow("query without path")
        << QByteArray("GET http://a.test?q HTTP/1.1\r\n\r\n") << forward << "a.test" << 80
        << QByteArray("GET /?q HTTP/1.1\r\nConnection: close\r\n\r\n");
    const int invalid = int(EgressRequest::Kind::Invalid);
    const auto bad = [invalid](const char *name, const char *head) {
        QTest::newRow(name) << QByteArray(head) << invalid << QString() << -1 << QByteArray();
    };
    bad("origin form", "GET /x HTTP/1.1\r\nHost: a.test\r\n\r\n");
    bad("https", "GET https://a.test/ HTTP/1.1\r\n\r\n");
    bad("CONNECT without port", "CONNECT a.test HTTP/1.1\r\n\r\n");
    bad("port 0", "CONNECT a.test:0 HTTP/1.1\r\n\r\n");
    bad("port too big", "CONNECT a.test:65536 HTTP/1.1\r\n\r\n");
    bad("signed port", "CONNECT a.test:+443 HTTP/1.1\r\n\r\n");
    bad("HTTP/2", "CONNECT a.test:443 HTTP/2.0\r\n\r\n");
    bad("userinfo", "GET http://u:p@a.test/ HTTP/1.1\r\n\r\n");
    bad("odd host", "CONNECT a.test%00.b:443 HTTP/1.1\r\n\r\n");
    bad("v6 unbracketed", "CONNECT ::1:443 HTTP/1.1\r\n\r\n");
    bad("extra space", "GET  http://a.test/ HTTP/1.1\r\n\r\n");
    bad("lowercase method", "get http://a.test/ HTTP/1.1\r\n\r\n");
    bad("garbage", "\x16\x03\x01\x02\x00\r\n\r\n");
    // A bare LF would smuggle a dropped header inside another line (found by the fuzzer).
    bad("bare LF smuggles Proxy-Connection", "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nX: "
                                             "y\nProxy-Connection: keep-alive\r\n\r\n");
    bad("bare CR", "GET http://a.test/ HTTP/1.1\r\nX: a\rb\r\n\r\n");
}

void TestEgressRules::parsesRequests() {
    QFETCH(QByteArray, head);
    QFETCH(int, kind);
    const EgressRequest request = parseEgressRequest(head);
    QCOMPARE(int(request.kind), kind);
    if (request.kind == EgressRequest::Kind::Invalid)
        return;
    QTEST(request.host, "host");
    QTEST(request.port, "port");
    QTEST(request.upstreamHead, "upstream");
}

void TestEgressRules::answersInPlainText() {
    QCOMPARE(
        egressResponse(403, "Forbidden", "no\n"),
        QByteArray("HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
                   "Connection: close\r\n\r\nno\n"));
    QCOMPARE(egressTarget(QStringLiteral("a.test"), 443), QStringLiteral("a.test:443"));
    QCOMPARE(egressTarget(QStringLiteral("::1"), 443), QStringLiteral("[::1]:443"));
}

QTEST_GUILESS_MAIN(TestEgressRules)
#include "tst_egress_rules.moc"
