#pragma once
// What a web page in the user's browser could send to flotillad, refused before routing and
// before auth (docs/security.md):
//   - a Host that is not one of ours: a page that rebinds its own name to 127.0.0.1 (DNS
//     rebinding) sends its own name as Host, and would otherwise read every answer;
//   - an Origin (or Sec-Fetch-Site: cross-site) that is not ours nor listed: cross-site requests
//     and WebSocket hijacking;
//   - a body that is not JSON: text/plain and form bodies are "simple" requests a browser sends
//     cross-site without a preflight.
// Pure logic over header values, no sockets: ConnectionGuard asks it for every request, the REST
// fuzzer asks it directly.

#include "http/Rejection.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QHostAddress>
#include <QList>
#include <QStringList>

#include <optional>

namespace flotilla {

struct RequestPolicyConfig {
    QStringList allowedHosts;   // --allow-host: names accepted in Host besides the loopback ones
    QStringList allowedOrigins; // --allow-origin: exact "scheme://host[:port]" granted CORS
    bool tls = false;           // served over TLS: our own origin is https://, not http://
};

// The header fields the policy looks at, as views into the request head (empty: absent).
struct PolicyFields {
    QByteArrayView host;
    QByteArrayView origin;
    QByteArrayView secFetchSite;
    QByteArrayView contentType;
    bool hasBody = false;
};

class RequestPolicy final {
public:
    explicit RequestPolicy(const RequestPolicyConfig &config = {});

    // Once listening: the bound address joins the accepted hosts (every local address when bound
    // to all interfaces) and `port` makes "http://<accepted host>:<port>" our own origin.
    void bind(const QHostAddress &address, quint16 port);

    // Host, then Origin / Sec-Fetch-Site. nullopt: go on.
    std::optional<Rejection> checkSource(const PolicyFields &f) const;
    // Content-Type of a request that has a body.
    std::optional<Rejection> checkBody(const PolicyFields &f) const;

    bool hostAllowed(QByteArrayView hostHeader) const;
    bool originAllowed(QByteArrayView origin, QByteArrayView hostHeader) const;
    // Listed with --allow-origin: a cross-origin caller the user trusts, answered with CORS grants.
    bool isListedOrigin(QByteArrayView origin) const;

    // "host[:port]" -> host, a view into `authority` ("[::1]" keeps its brackets), and port (-1:
    // none). False when it is not of that shape.
    static bool splitAuthority(QByteArrayView authority, QByteArrayView *host, int *port);

private:
    bool isAcceptedHostName(QByteArrayView host) const; // case-insensitive
    void addHost(const QHostAddress &address);

    QList<QByteArray> m_hosts;   // lower-cased; IPv6 literals in brackets
    QList<QByteArray> m_origins; // lower-cased, no trailing slash
    int m_port = -1;
    bool m_tls = false;
};

} // namespace flotilla
