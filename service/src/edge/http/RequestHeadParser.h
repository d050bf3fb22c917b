#pragma once
// The request head as ConnectionGuard judges it, parsed without a socket (and so fuzzable:
// fuzz/fuzz_http_head.cpp). Everything is a view into the head buffer: no allocation on the hot
// path.
//
// parseRequestHead checks the request line and each header field and refuses what Qt 6.4's
// parser and this guard could read differently: a repeated Host, Origin, Content-Type,
// Content-Length, Connection or Upgrade (Qt keeps one of the values, the guard would judge
// another; RFC 9112 §3.2 refuses a second Host outright). frameBody then decides the body's
// framing: it runs after the Host/Origin policy, so a foreign page learns nothing more from a
// malformed body than that it is foreign.

#include "http/Rejection.h"

#include <QByteArrayView>
#include <QVarLengthArray>

#include <variant>

namespace flotilla {

struct HeaderView {
    QByteArrayView name;
    QByteArrayView value;
};

struct ParsedHead {
    QByteArrayView method;
    QByteArrayView target;
    QByteArrayView version;
    QVarLengthArray<HeaderView, 32> headers;
    // The fields that decide routing and framing; a default (null) view when absent.
    QByteArrayView host, origin, fetchSite, contentType, contentLength, connection, upgrade;
    QByteArrayView transferEncoding, expect;
    // Set by frameBody.
    qint64 bodyLength = 0;
    bool chunked = false;

    // Upgrade with "Connection: upgrade" (Qt 6.4 would take any such request for an upgrade).
    bool asksUpgrade() const;
};

struct HeadLimits {
    int maxTargetBytes = 8 * 1024;
    int maxHeaderCount = 64;
};

// `head`: from the request line to the blank line that ends the head (included).
std::variant<ParsedHead, Rejection> parseRequestHead(QByteArrayView head, const HeadLimits &limits);

// Content-Length or chunked; refuses both at once, other transfer codings and a malformed or
// too large length.
std::optional<Rejection> frameBody(ParsedHead &head, qint64 maxBodyBytes);

} // namespace flotilla
