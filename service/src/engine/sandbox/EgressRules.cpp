#include "sandbox/EgressRules.h"

#include <QHostAddress>
#include <QRegularExpression>

namespace flotilla {

namespace {

bool isDigits(const QByteArray &text) {
    if (text.isEmpty())
        return false;
    for (const char c : text) {
        if (c < '0' || c > '9')
            return false;
    }
    return true;
}

// "host:port" or "[v6]:port"; without a port, `defaultPort` (-1: the port is required). Names
// are letters, digits, '.', '-', '_': nothing a resolver or the matcher could read otherwise.
bool parseAuthority(const QByteArray &text, int defaultPort, QString *host, int *port) {
    QByteArray name;
    QByteArray portText;
    bool hasPort = false;
    if (text.startsWith('[')) {
        const qsizetype close = text.indexOf(']');
        if (close < 0)
            return false;
        name = text.mid(1, close - 1);
        const QByteArray after = text.mid(close + 1);
        hasPort = !after.isEmpty();
        if (hasPort && !after.startsWith(':'))
            return false;
        portText = after.mid(1);
        QHostAddress address;
        if (!address.setAddress(QString::fromLatin1(name)) ||
            address.protocol() != QAbstractSocket::IPv6Protocol)
            return false;
    } else {
        const qsizetype colon = text.indexOf(':');
        hasPort = colon >= 0;
        name = hasPort ? text.left(colon) : text;
        portText = hasPort ? text.mid(colon + 1) : QByteArray();
        static const QRegularExpression nameRe(
            QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}$"));
        if (!nameRe.match(QString::fromLatin1(name)).hasMatch())
            return false;
    }
    if (!hasPort && defaultPort < 0)
        return false;
    int value = defaultPort;
    if (hasPort) {
        if (!isDigits(portText) || portText.size() > 5)
            return false;
        value = portText.toInt();
        if (value < 1 || value > 65535)
            return false;
    }
    *host = QString::fromLatin1(name).toLower();
    *port = value;
    return true;
}

bool isMethod(const QByteArray &method) {
    if (method.isEmpty() || method.size() > 20)
        return false;
    for (const char c : method) {
        if (!((c >= 'A' && c <= 'Z') || c == '-' || c == '_'))
            return false;
    }
    return true;
}

// No spaces or control bytes in a request target: the upstream must read the same line we did.
bool isCleanTarget(const QByteArray &target) {
    for (const char c : target) {
        const auto u = static_cast<unsigned char>(c);
        if (u <= 0x20 || u == 0x7f)
            return false;
    }
    return !target.isEmpty();
}

// Hop-by-hop headers that are the proxy's, not the upstream's. Connection and Keep-Alive go too:
// the forwarded request says `Connection: close`, because this proxy relays one request per
// connection and a client reusing it for another host must not reach this upstream instead.
bool isDroppedHeader(const QByteArray &line) {
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0)
        return false;
    const QByteArray name = line.left(colon).trimmed().toLower();
    return name == "proxy-connection" || name == "proxy-authorization" || name == "connection" ||
           name == "keep-alive";
}

QByteArray originFormHead(const QByteArray &requestLine, const QByteArray &headers) {
    QByteArray out = requestLine + "\r\n";
    bool dropping = false;
    qsizetype from = 0;
    while (from < headers.size()) {
        qsizetype end = headers.indexOf("\r\n", from);
        if (end < 0)
            end = headers.size();
        const QByteArray line = headers.mid(from, end - from);
        from = end + 2;
        if (line.isEmpty())
            continue;
        // A folded continuation belongs to the header above it.
        if (line.startsWith(' ') || line.startsWith('\t')) {
            if (!dropping)
                out += line + "\r\n";
            continue;
        }
        dropping = isDroppedHeader(line);
        if (!dropping)
            out += line + "\r\n";
    }
    return out + "Connection: close\r\n\r\n";
}

} // namespace

EgressRule parseEgressRule(const QString &text) {
    EgressRule rule;
    QString host = text.trimmed();
    QString portText;
    if (host.startsWith(u'[')) {
        const qsizetype close = host.indexOf(u']');
        if (close > 0) {
            const QString after = host.mid(close + 1);
            if (after.startsWith(u':'))
                portText = after.mid(1);
            host = host.mid(1, close - 1);
        }
    } else if (const qsizetype colon = host.indexOf(u':'); colon > 0) {
        portText = host.mid(colon + 1);
        host = host.left(colon);
    }
    if (!portText.isEmpty()) {
        bool ok = false;
        const int port = portText.toInt(&ok);
        // A port that cannot be one matches nothing (0), never everything (-1).
        rule.port = ok && port >= 1 && port <= 65535 ? port : 0;
    }
    rule.host = host.toLower();
    return rule;
}

EgressRequest parseEgressRequest(const QByteArray &head) {
    EgressRequest request;
    // Every line ends in CRLF, and nothing else in the head is a CR, an LF or a NUL: a bare LF
    // would let a header the proxy drops (Proxy-Authorization) through inside another line, to
    // an upstream that splits on LF (found by fuzz_egress_request).
    for (qsizetype i = 0; i < head.size(); ++i) {
        const char ch = head[i];
        if (ch == '\0' || (ch == '\r' && (i + 1 >= head.size() || head[i + 1] != '\n')) ||
            (ch == '\n' && (i == 0 || head[i - 1] != '\r')))
            return request;
    }
    const qsizetype lineEnd = head.indexOf("\r\n");
    if (lineEnd <= 0)
        return request;
    const QByteArray requestLine = head.left(lineEnd);
    const QList<QByteArray> parts = requestLine.split(' ');
    if (parts.size() != 3 || !isMethod(parts[0]) || !isCleanTarget(parts[1]))
        return request;
    const QByteArray &method = parts[0];
    const QByteArray &target = parts[1];
    const QByteArray &version = parts[2];
    if (version != "HTTP/1.1" && version != "HTTP/1.0")
        return request;
    if (method == "CONNECT") {
        if (parseAuthority(target, -1, &request.host, &request.port))
            request.kind = EgressRequest::Kind::Connect;
        return request;
    }
    // Absolute form, plain http only: an https:// URL would ask the proxy to speak TLS.
    constexpr qsizetype kSchemeLength = 7; // "http://"
    if (!target.toLower().startsWith("http://"))
        return request;
    const QByteArray rest = target.mid(kSchemeLength);
    qsizetype pathStart = rest.size();
    for (qsizetype i = 0; i < rest.size(); ++i) {
        if (rest[i] == '/' || rest[i] == '?' || rest[i] == '#') {
            pathStart = i;
            break;
        }
    }
    const QByteArray authority = rest.left(pathStart);
    if (authority.contains('@') || !parseAuthority(authority, 80, &request.host, &request.port))
        return request;
    QByteArray path = rest.mid(pathStart);
    if (const qsizetype hash = path.indexOf('#'); hash >= 0)
        path.truncate(hash);
    if (!path.startsWith('/'))
        path.prepend('/');
    request.upstreamHead =
        originFormHead(method + ' ' + path + ' ' + version, head.mid(lineEnd + 2));
    request.kind = EgressRequest::Kind::Forward;
    return request;
}

bool egressAllows(const QList<EgressRule> &rules, const QString &host, int port) {
    for (const EgressRule &rule : rules) {
        if (rule.port >= 0 && rule.port != port)
            continue;
        if (rule.host.startsWith(QLatin1String("*."))) {
            const QStringView suffix = QStringView(rule.host).mid(1); // ".example.org"
            if (host.size() > suffix.size() && host.endsWith(suffix, Qt::CaseInsensitive))
                return true;
        } else if (host.compare(rule.host, Qt::CaseInsensitive) == 0) {
            return true;
        }
    }
    return false;
}

QByteArray egressResponse(int status, const char *reason, const QByteArray &body) {
    return QByteArray("HTTP/1.1 ") + QByteArray::number(status) + ' ' + reason +
           "\r\nContent-Type: text/plain\r\nContent-Length: " + QByteArray::number(body.size()) +
           "\r\nConnection: close\r\n\r\n" + body;
}

QString egressTarget(const QString &host, int port) {
    const QString shown = host.contains(QLatin1Char(':')) ? u'[' + host + u']' : host;
    return shown + u':' + QString::number(port);
}

} // namespace flotilla
