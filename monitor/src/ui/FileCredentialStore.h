#pragma once
// Tokens in a JSON file readable by the user only (0600), for desktops without a keyring (CI,
// Xvfb, minimal window managers). Plain text on disk: the connect dialog says so.

#include "ui/CredentialStore.h"

#include <QJsonObject>

namespace flotilla::monitor::ui {

class FileCredentialStore final : public CredentialStore {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(FileCredentialStore)
public:
    // `path` empty: <AppConfigLocation>/tokens.json
    explicit FileCredentialStore(QString path = {}, QObject *parent = nullptr);

    void readToken(const QString &key, ReadDone done) override;
    void writeToken(const QString &key, const QByteArray &token, WriteDone done = {}) override;
    void removeToken(const QString &key) override;
    QString warning() const override;

    QString path() const { return m_path; }

private:
    QJsonObject load() const;
    bool save(const QJsonObject &tokens) const;

    QString m_path;
};

} // namespace flotilla::monitor::ui
