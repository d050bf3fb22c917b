#include "app/TlsFiles.h"

#include "protocol/WireNames.h"

#include <QDateTime>
#include <QFile>
#include <QSslCertificate>
#include <QSslCipher>
#include <QSslKey>
#include <QSslSocket>

#include <sys/stat.h>

namespace flotilla {

namespace {

Error refused(const QString &message) {
    return Error::invalid(wire::code::InvalidValue, message);
}

// Mozilla's "intermediate" profile: TLS 1.3 as OpenSSL offers it; for TLS 1.2 only forward-secret
// key exchange (ECDHE) with an AEAD cipher (AES-GCM, ChaCha20-Poly1305). No CBC (padding
// oracles), no RSA key transport (no forward secrecy), no plain DHE (weak groups).
QList<QSslCipher> intermediateCiphers() {
    QList<QSslCipher> out;
    for (const QSslCipher &cipher : QSslConfiguration::supportedCiphers()) {
        const QString name = cipher.name();
        if (cipher.protocol() == QSsl::TlsV1_3) {
            out.append(cipher);
            continue;
        }
        const bool ecdhe = name.startsWith(QLatin1String("ECDHE-"));
        const bool aead = name.contains(QLatin1String("-GCM-")) ||
                          name.contains(QLatin1String("CHACHA20-POLY1305"));
        if (cipher.protocol() == QSsl::TlsV1_2 && ecdhe && aead)
            out.append(cipher);
    }
    return out;
}

} // namespace

Result<QSslConfiguration> loadTlsConfiguration(const QString &certPath, const QString &keyPath) {
    if (!QSslSocket::supportsSsl())
        return refused(QStringLiteral("TLS is not available: Qt found no OpenSSL (%1)")
                           .arg(QSslSocket::sslLibraryBuildVersionString()));
    QFile certFile(certPath);
    if (!certFile.open(QIODevice::ReadOnly))
        return refused(
            QStringLiteral("cannot read --tls-cert %1: %2").arg(certPath, certFile.errorString()));
    const QList<QSslCertificate> chain = QSslCertificate::fromData(certFile.readAll(), QSsl::Pem);
    if (chain.isEmpty() || chain.first().isNull())
        return refused(QStringLiteral("--tls-cert %1 holds no PEM certificate").arg(certPath));
    if (chain.first().expiryDate() < QDateTime::currentDateTimeUtc())
        return refused(QStringLiteral("--tls-cert %1 expired on %2")
                           .arg(certPath, chain.first().expiryDate().toString(Qt::ISODate)));

    // The key is a secret like the token file: one other users could read is refused.
    struct stat st {};
    if (::stat(QFile::encodeName(keyPath).constData(), &st) == 0 && (st.st_mode & 077) != 0)
        return refused(QStringLiteral("--tls-key %1 can be read by other users (mode %2); make it "
                                      "private: chmod 600 %1")
                           .arg(keyPath, QString::number(st.st_mode & 0777, 8)));
    QFile keyFile(keyPath);
    if (!keyFile.open(QIODevice::ReadOnly))
        return refused(
            QStringLiteral("cannot read --tls-key %1: %2").arg(keyPath, keyFile.errorString()));
    const QByteArray pem = keyFile.readAll();
    QSslKey key;
    for (QSsl::KeyAlgorithm algorithm : {QSsl::Rsa, QSsl::Ec}) {
        key = QSslKey(pem, algorithm, QSsl::Pem, QSsl::PrivateKey);
        if (!key.isNull())
            break;
    }
    if (key.isNull())
        return refused(QStringLiteral("--tls-key %1 holds no unencrypted RSA or EC private key in "
                                      "PEM form")
                           .arg(keyPath));
    // A cheap check that the key matches the certificate (algorithm and size; Qt 6.4 offers no
    // way to derive the public half of a private key).
    const QSslKey certKey = chain.first().publicKey();
    if (certKey.algorithm() != key.algorithm() || certKey.length() != key.length())
        return refused(QStringLiteral("--tls-key %1 does not belong to the certificate in %2")
                           .arg(keyPath, certPath));

    QSslConfiguration config = QSslConfiguration::defaultConfiguration();
    config.setLocalCertificateChain(chain);
    config.setPrivateKey(key);
    config.setProtocol(QSsl::TlsV1_2OrLater);
    const QList<QSslCipher> ciphers = intermediateCiphers();
    if (ciphers.isEmpty())
        return refused(QStringLiteral("TLS: the OpenSSL in use offers no ECDHE+AEAD cipher suite"));
    config.setCiphers(ciphers);
    config.setPeerVerifyMode(QSslSocket::VerifyNone); // clients authenticate with the token
    return config;
}

} // namespace flotilla
