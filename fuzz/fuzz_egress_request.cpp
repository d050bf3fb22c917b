// libFuzzer target: the one request head an allow-list sandbox's process sends flotillad's egress
// proxy (sandbox/EgressRules.h parseEgressRequest), and the allow-list match it is judged by.
// The bytes come from inside the sandbox: whatever they are, the parser answers Invalid, or a
// destination with a host and a port in range.
//
// Invariants: CONNECT and Forward carry a non-empty lowercase host without brackets or spaces and
// a port in 1..65535; a Forward's upstream head starts with a method and " /", ends with
// "Connection: close\r\n\r\n", and holds no Proxy-Authorization or Proxy-Connection line (the
// agent's proxy credentials never travel on); Invalid carries no destination. A destination
// matched against an empty list is refused, against its own exact rule allowed.

#include "FuzzSupport.h"

#include "sandbox/EgressRules.h"

#include <QByteArray>

using namespace flotilla;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    QByteArray head(reinterpret_cast<const char *>(data), qsizetype(size));
    if (!head.endsWith("\r\n\r\n"))
        head += "\r\n\r\n";
    const EgressRequest r = parseEgressRequest(head);
    if (r.kind == EgressRequest::Kind::Invalid) {
        FUZZ_CHECK(r.upstreamHead.isEmpty(), "invalid with an upstream head");
        return 0;
    }
    FUZZ_CHECK(!r.host.isEmpty(), "destination without host");
    FUZZ_CHECK(r.host == r.host.toLower(), "host not lowercased");
    FUZZ_CHECK(!r.host.contains(QLatin1Char(' ')) && !r.host.contains(QLatin1Char('[')),
               "host with a space or bracket");
    FUZZ_CHECK(r.port >= 1 && r.port <= 65535, "port out of range");
    FUZZ_CHECK(!egressAllows({}, r.host, r.port), "allowed by an empty list");
    FUZZ_CHECK(egressAllows({EgressRule{r.host, r.port}}, r.host, r.port), "not its own rule");
    if (r.kind == EgressRequest::Kind::Forward) {
        const QByteArray lower = r.upstreamHead.toLower();
        FUZZ_CHECK(r.upstreamHead.contains(" /"), "upstream head not in origin form");
        FUZZ_CHECK(r.upstreamHead.endsWith("Connection: close\r\n\r\n"), "no Connection: close");
        FUZZ_CHECK(!lower.contains("\nproxy-authorization:") &&
                       !lower.contains("\nproxy-connection:"),
                   "proxy header passed on");
    } else {
        FUZZ_CHECK(r.upstreamHead.isEmpty(), "CONNECT with an upstream head");
    }
    return 0;
}
