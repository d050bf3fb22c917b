#include "app/TlsFiles.h"

#include "protocol/WireNames.h"

#include <QDateTime>
#include <QFile>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>

namespace flotilla {

namespace {

Error refused(const QString &message) {
    return Error::invalid(wire::code::InvalidValue, message);
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
    config.setPeerVerifyMode(QSslSocket::VerifyNone); // clients authenticate with the token
    return config;
}

} // namespace flotilla
