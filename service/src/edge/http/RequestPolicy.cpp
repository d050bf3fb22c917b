#include "http/RequestPolicy.h"

#include "http/HeaderText.h"
#include "protocol/WireNames.h"

#include <QNetworkInterface>

namespace flotilla {

namespace c = wire::code;

namespace {

QByteArray lowered(QByteArrayView v) {
    return v.toByteArray().toLower();
}

QByteArray normalizedOrigin(QByteArrayView origin) {
    QByteArray o = lowered(origin).trimmed();
    while (o.endsWith('/'))
        o.chop(1);
    return o;
}

Rejection forbidden(QLatin1String code, const QString &message) {
    return Rejection{403, code, message, {}};
}

} // namespace

RequestPolicy::RequestPolicy(const RequestPolicyConfig &config)
    : m_tls(config.tls) {
    m_hosts = {QByteArrayLiteral("localhost"), QByteArrayLiteral("127.0.0.1"),
               QByteArrayLiteral("[::1]")};
    for (const QString &h : config.allowedHosts) {
        QString bare = h.trimmed();
        if (bare.startsWith(QLatin1Char('[')) && bare.endsWith(QLatin1Char(']')))
            bare = bare.mid(1, bare.size() - 2);
        const QHostAddress address(bare);
        if (!address.isNull()) { // an address, written as a browser writes it in Host
            addHost(address);
            continue;
        }
        QByteArray name = bare.toLower().toUtf8();
        if (!name.isEmpty() && !m_hosts.contains(name))
            m_hosts.append(name);
    }
    for (const QString &o : config.allowedOrigins) {
        const QByteArray origin = normalizedOrigin(o.toUtf8());
        if (!origin.isEmpty())
            m_origins.append(origin);
    }
}

void RequestPolicy::addHost(const QHostAddress &address) {
    QHostAddress a = address;
    a.setScopeId({}); // a zone id never appears in a Host a browser sends
    QByteArray text = a.toString().toLower().toLatin1();
    if (a.protocol() == QAbstractSocket::IPv6Protocol)
        text = '[' + text + ']';
    if (!text.isEmpty() && !m_hosts.contains(text))
        m_hosts.append(text);
}

void RequestPolicy::bind(const QHostAddress &address, quint16 port) {
    m_port = port;
    const bool any = address == QHostAddress(QHostAddress::Any) ||
                     address == QHostAddress(QHostAddress::AnyIPv4) ||
                     address == QHostAddress(QHostAddress::AnyIPv6);
    if (!any) {
        addHost(address);
        return;
    }
    // Bound to every interface: each local address is "the address we are bound to". An IP
    // literal in Host cannot come from DNS rebinding (the page's origin is then that address).
    const QList<QHostAddress> all = QNetworkInterface::allAddresses();
    for (const QHostAddress &a : all)
        addHost(a);
}

bool RequestPolicy::splitAuthority(QByteArrayView authority, QByteArrayView *host, int *port) {
    QByteArrayView h = authority;
    QByteArrayView rest;
    if (authority.startsWith('[')) {
        const qsizetype close = authority.indexOf(']');
        if (close < 0)
            return false;
        h = authority.first(close + 1);
        rest = authority.sliced(close + 1);
    } else {
        const qsizetype colon = authority.indexOf(':');
        if (colon >= 0) {
            h = authority.first(colon);
            rest = authority.sliced(colon);
        }
    }
    if (h.isEmpty())
        return false;
    *port = -1;
    if (!rest.isEmpty()) {
        if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6)
            return false;
        int value = 0;
        for (char ch : rest.sliced(1)) {
            if (ch < '0' || ch > '9')
                return false;
            value = value * 10 + (ch - '0');
        }
        if (value > 65535)
            return false;
        *port = value;
    }
    for (char ch : h) {
        // A host name, an IPv4 or a bracketed IPv6 literal: nothing else (no userinfo, no path).
        const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                        (ch >= '0' && ch <= '9') || ch == '.' || ch == '-' || ch == '_' ||
                        ch == '[' || ch == ']' || ch == ':';
        if (!ok)
            return false;
    }
    *host = h;
    return true;
}

bool RequestPolicy::isAcceptedHostName(QByteArrayView host) const {
    // A handful of names: a linear, allocation-free scan is the cheapest per request.
    for (const QByteArray &accepted : m_hosts) {
        if (equalsIgnoringCase(host, accepted))
            return true;
    }
    return false;
}

bool RequestPolicy::hostAllowed(QByteArrayView hostHeader) const {
    QByteArrayView host;
    int port = -1;
    return splitAuthority(trimmedView(hostHeader), &host, &port) && isAcceptedHostName(host);
}

bool RequestPolicy::isListedOrigin(QByteArrayView origin) const {
    return !m_origins.isEmpty() && m_origins.contains(normalizedOrigin(origin));
}

bool RequestPolicy::originAllowed(QByteArrayView origin, QByteArrayView hostHeader) const {
    origin = trimmedView(origin);
    if (isListedOrigin(origin))
        return true;
    // Our own origin: http (https with TLS), a host we accept, and our port (or, behind a port
    // forward, exactly the authority the request was sent to). "null" (sandboxed frames, file:)
    // never matches.
    const QByteArrayView scheme = m_tls ? QByteArrayView("https://") : QByteArrayView("http://");
    if (origin.size() <= scheme.size() || !equalsIgnoringCase(origin.first(scheme.size()), scheme))
        return false;
    const QByteArrayView authority = origin.sliced(scheme.size());
    QByteArrayView host;
    int port = -1;
    if (!splitAuthority(authority, &host, &port) || !isAcceptedHostName(host))
        return false;
    if ((port < 0 ? (m_tls ? 443 : 80) : port) == m_port)
        return true;
    return !hostHeader.isEmpty() && equalsIgnoringCase(authority, trimmedView(hostHeader));
}

std::optional<Rejection> RequestPolicy::checkSource(const PolicyFields &f) const {
    // HTTP/1.0 without Host is not a browser (browsers always send it); HTTP/1.1 without Host
    // was refused by the framing checks already.
    if (!f.host.isEmpty() && !hostAllowed(f.host)) {
        return forbidden(
            c::ForbiddenHost,
            QStringLiteral("Host '%1' is not served here; start flotillad with "
                           "--allow-host NAME to accept it")
                .arg(QString::fromUtf8(f.host.first(qMin<qsizetype>(f.host.size(), 100)))));
    }
    if (!f.origin.isEmpty()) {
        if (!originAllowed(f.origin, f.host))
            return forbidden(
                c::ForbiddenOrigin,
                QStringLiteral("origin '%1' not allowed; start flotillad with "
                               "--allow-origin ORIGIN to accept it")
                    .arg(QString::fromUtf8(f.origin.first(qMin<qsizetype>(f.origin.size(), 200)))));
    } else if (equalsIgnoringCase(trimmedView(f.secFetchSite), "cross-site")) {
        return forbidden(c::ForbiddenOrigin,
                         QStringLiteral("cross-site request without an allowed Origin"));
    }
    return std::nullopt;
}

std::optional<Rejection> RequestPolicy::checkBody(const PolicyFields &f) const {
    if (!f.hasBody)
        return std::nullopt;
    QByteArrayView type = f.contentType;
    const qsizetype semi = type.indexOf(';');
    if (semi >= 0)
        type = type.first(semi);
    if (equalsIgnoringCase(trimmedView(type), "application/json"))
        return std::nullopt;
    return Rejection{415,
                     c::UnsupportedMediaType,
                     f.contentType.isEmpty()
                         ? QStringLiteral("a request body needs Content-Type: application/json")
                         : QStringLiteral("Content-Type '%1' is not accepted; send "
                                          "application/json")
                               .arg(QString::fromUtf8(f.contentType.first(
                                   qMin<qsizetype>(f.contentType.size(), 100)))),
                     {}};
}

} // namespace flotilla
