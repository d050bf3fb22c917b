#pragma once
// Where the monitor keeps service tokens. An interface so the UI test (and a desktop without a
// keyring) can use the file store, while the real application asks the desktop keyring first.
// Asynchronous because keyring backends answer over D-Bus.

#include <QByteArray>
#include <QObject>
#include <QString>
#include <functional>

namespace flotilla::monitor::ui {

class CredentialStore : public QObject {
    Q_OBJECT
public:
    using ReadDone = std::function<void(bool found, const QByteArray &token)>;
    using WriteDone = std::function<void(bool ok)>;

    explicit CredentialStore(QObject *parent = nullptr)
        : QObject(parent) {}

    // `key` names one saved service (its URL). `done` runs once, possibly later.
    virtual void readToken(const QString &key, ReadDone done) = 0;
    virtual void writeToken(const QString &key, const QByteArray &token, WriteDone done = {}) = 0;
    virtual void removeToken(const QString &key) = 0;
    // Empty while tokens go to the keyring; otherwise a sentence for the connect dialog saying
    // where they are kept instead.
    virtual QString warning() const = 0;

Q_SIGNALS:
    void warningChanged(const QString &warning);
};

} // namespace flotilla::monitor::ui
