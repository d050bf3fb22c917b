#pragma once
// What the network allow-list proxy (sandbox/EgressProxy.h) decides on, as pure functions: an
// agent's rules (its sandbox's allowHosts), whether a host and port are on them, and the one
// request head a proxy connection starts with. Pure so that they are tested row by row and can
// be fuzzed: the request head is outside bytes from inside the sandbox.

#include <QByteArray>
#include <QList>
#include <QString>

namespace flotilla {

// What an agent may reach: host (case-insensitive; "*.example.org" matches subdomains, not the
// apex) and port (-1: any).
struct EgressRule {
    QString host;
    int port = -1;
};

// Parses "host[:port]" / "*.host[:port]" (the sandbox's allowHosts, already validated; "[v6]" and
// "[v6]:port" are read too); the host lowercased, the port -1 (any) when absent, 0 (nothing)
// when it cannot be a port.
EgressRule parseEgressRule(const QString &text);

// Whether `host` and `port` are on the list: the host exactly (case-insensitive) or under a
// wildcard's domain, IP literals literally; never by what a name resolves to.
bool egressAllows(const QList<EgressRule> &rules, const QString &host, int port);

// A proxy request head, as read from the bytes up to and including the blank line.
struct EgressRequest {
    enum class Kind {
        Invalid, // origin form, https://, no port on CONNECT, a bad host, not HTTP/1.x, garbage
        Connect, // CONNECT host:port: a tunnel
        Forward, // METHOD http://host[:port]/path: sent on in origin form
    };
    Kind kind = Kind::Invalid;
    QString host; // lowercased; an IPv6 literal without its brackets
    int port = -1;
    // Forward: the head the upstream gets: `METHOD /path HTTP/1.x`, the client's header lines
    // but the proxy's own (Proxy-Connection, Proxy-Authorization) and the connection's
    // (Connection, Keep-Alive), then `Connection: close`.
    QByteArray upstreamHead;
};

// `head` ends with "\r\n\r\n".
EgressRequest parseEgressRequest(const QByteArray &head);

// The proxy's own answers: a plain-text body, and the connection closes.
QByteArray egressResponse(int status, const char *reason, const QByteArray &body);
// "host:port", "[v6]:port": how the proxy names a destination in answers and the log.
QString egressTarget(const QString &host, int port);

} // namespace flotilla
