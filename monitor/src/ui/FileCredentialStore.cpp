#include "ui/FileCredentialStore.h"

#include "ui/UiLog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

namespace flotilla::monitor::ui {

FileCredentialStore::FileCredentialStore(QString path, QObject *parent)
    : CredentialStore(parent)
    , m_path(std::move(path)) {
    if (m_path.isEmpty())
        m_path = QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation) +
                 QStringLiteral("/tokens.json");
}

void FileCredentialStore::readToken(const QString &key, ReadDone done) {
    const QJsonObject tokens = load();
    const bool found = tokens.contains(key);
    if (done)
        done(found, tokens.value(key).toString().toUtf8());
}

void FileCredentialStore::writeToken(const QString &key, const QByteArray &token, WriteDone done) {
    QJsonObject tokens = load();
    tokens.insert(key, QString::fromUtf8(token));
    const bool ok = save(tokens);
    if (done)
        done(ok);
}

void FileCredentialStore::removeToken(const QString &key) {
    QJsonObject tokens = load();
    if (tokens.contains(key)) {
        tokens.remove(key);
        save(tokens);
    }
}

QString FileCredentialStore::warning() const {
    return tr("No desktop keyring is available: tokens are stored unencrypted in %1 "
              "(readable by you only).")
        .arg(QDir::toNativeSeparators(m_path));
}

QJsonObject FileCredentialStore::load() const {
    QFile f(m_path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

bool FileCredentialStore::save(const QJsonObject &tokens) const {
    QDir().mkpath(QFileInfo(m_path).absolutePath());
    QSaveFile f(m_path);
    if (!f.open(QIODevice::WriteOnly)) {
        qCWarning(lcUi) << "cannot write" << m_path << f.errorString();
        return false;
    }
    // Restrict the temporary file before the secret is written into it, so there is no moment
    // where the token sits in a world-readable file.
    f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    f.write(QJsonDocument(tokens).toJson(QJsonDocument::Compact));
    if (!f.commit()) {
        qCWarning(lcUi) << "cannot write" << m_path << f.errorString();
        return false;
    }
    return true;
}

} // namespace flotilla::monitor::ui
