#pragma once
// Tokens in the desktop keyring (Secret Service / KWallet) through QtKeychain. When the keyring
// answers that it is not there (no D-Bus session, no secret service: CI, Xvfb), every later call
// goes to the file store and warning() says so, once, for the connect dialog.

#include "ui/CredentialStore.h"
#include "ui/FileCredentialStore.h"

namespace flotilla::monitor::ui {

class KeychainCredentialStore final : public CredentialStore {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(KeychainCredentialStore)
public:
    explicit KeychainCredentialStore(QObject *parent = nullptr);

    void readToken(const QString &key, ReadDone done) override;
    void writeToken(const QString &key, const QByteArray &token, WriteDone done = {}) override;
    void removeToken(const QString &key) override;
    QString warning() const override;

private:
    void fallBack(const QString &reason);

    FileCredentialStore m_file;
    bool m_useFile = false;
    QString m_reason;
};

} // namespace flotilla::monitor::ui
