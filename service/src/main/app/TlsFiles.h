#pragma once
// `--tls-cert PATH --tls-key PATH`: the service's certificate (PEM, the chain in order) and its
// unencrypted private key (PEM: RSA or EC), loaded once at start into the QSslConfiguration the
// HTTP server's listener uses (Qt's OpenSSL backend; TLS 1.2 or later).

#include "base/Error.h"

#include <QSslConfiguration>
#include <QString>

namespace flotilla {

// Refused, with a message naming the file and the reason: TLS unavailable in this Qt, a file
// missing or unreadable, no certificate in it, an expired certificate, a key that is not an
// unencrypted RSA/EC PEM key, or a key of another algorithm or size than the certificate's (a
// mismatched key of the same kind fails every handshake, logged).
Result<QSslConfiguration> loadTlsConfiguration(const QString &certPath, const QString &keyPath);

} // namespace flotilla
