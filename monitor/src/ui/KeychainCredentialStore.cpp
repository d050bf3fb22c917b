#include "ui/KeychainCredentialStore.h"

#include "ui/UiLog.h"

#ifdef FLOTILLA_HAVE_QTKEYCHAIN
#include <qt6keychain/keychain.h>
#endif

namespace flotilla::monitor::ui {

namespace {
#ifdef FLOTILLA_HAVE_QTKEYCHAIN
const QString kService = QStringLiteral("flotilla-monitor");

// Errors that mean "there is no usable keyring", as opposed to "no entry" or "user said no".
bool isBackendMissing(QKeychain::Error e) {
    return e == QKeychain::NoBackendAvailable || e == QKeychain::NotImplemented ||
           e == QKeychain::OtherError || e == QKeychain::AccessDenied;
}
#endif
} // namespace

KeychainCredentialStore::KeychainCredentialStore(QObject *parent)
    : CredentialStore(parent) {
#ifndef FLOTILLA_HAVE_QTKEYCHAIN
    m_useFile = true;
    m_reason = tr("this build has no QtKeychain");
#endif
}

QString KeychainCredentialStore::warning() const {
    if (!m_useFile)
        return {};
    return m_file.warning() + QLatin1Char(' ') + tr("(Keyring: %1)").arg(m_reason);
}

void KeychainCredentialStore::fallBack(const QString &reason) {
    if (m_useFile)
        return;
    m_useFile = true;
    m_reason = reason;
    qCWarning(lcUi) << "desktop keyring unavailable, tokens go to" << m_file.path() << reason;
    Q_EMIT warningChanged(warning());
}

void KeychainCredentialStore::readToken(const QString &key, ReadDone done) {
#ifdef FLOTILLA_HAVE_QTKEYCHAIN
    if (!m_useFile) {
        auto *job = new QKeychain::ReadPasswordJob(kService, this);
        job->setKey(key);
        connect(job, &QKeychain::Job::finished, this, [this, key, done](QKeychain::Job *j) {
            auto *read = static_cast<QKeychain::ReadPasswordJob *>(j);
            if (read->error() == QKeychain::NoError) {
                if (done)
                    done(true, read->textData().toUtf8());
                return;
            }
            if (isBackendMissing(read->error())) {
                fallBack(read->errorString());
                m_file.readToken(key, done);
                return;
            }
            if (done)
                done(false, {});
        });
        job->start();
        return;
    }
#endif
    m_file.readToken(key, std::move(done));
}

void KeychainCredentialStore::writeToken(const QString &key, const QByteArray &token,
                                         WriteDone done) {
#ifdef FLOTILLA_HAVE_QTKEYCHAIN
    if (!m_useFile) {
        auto *job = new QKeychain::WritePasswordJob(kService, this);
        job->setKey(key);
        job->setTextData(QString::fromUtf8(token));
        connect(job, &QKeychain::Job::finished, this, [this, key, token, done](QKeychain::Job *j) {
            if (j->error() == QKeychain::NoError) {
                if (done)
                    done(true);
                return;
            }
            if (isBackendMissing(j->error())) {
                fallBack(j->errorString());
                m_file.writeToken(key, token, done);
                return;
            }
            if (done)
                done(false);
        });
        job->start();
        return;
    }
#endif
    m_file.writeToken(key, token, std::move(done));
}

void KeychainCredentialStore::removeToken(const QString &key) {
#ifdef FLOTILLA_HAVE_QTKEYCHAIN
    if (!m_useFile) {
        auto *job = new QKeychain::DeletePasswordJob(kService, this);
        job->setKey(key);
        job->start();
    }
#endif
    // A token may sit in the file from an earlier session without a keyring: remove it too.
    m_file.removeToken(key);
}

} // namespace flotilla::monitor::ui
