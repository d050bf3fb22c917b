#pragma once
// Named secrets for exec commands, persisted as secrets.json (mode 0600) in the data dir.
// Values never leave this object except through expand() (the command to run) and values()
// (what the masker hides); listings carry names and timestamps only.

#include "base/Clock.h"
#include "base/Error.h"

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QMap>
#include <QString>

namespace flotilla {

class SecretStore final {
    Q_DISABLE_COPY_MOVE(SecretStore)
public:
    static constexpr int kFormatVersion = 1;
    static constexpr int kMaxSecrets = 256;
    static constexpr int kMaxNameChars = 128;
    static constexpr int kMaxValueChars = 16 * 1024;

    SecretStore(QString path, Clock clock);

    // Reads the file. A damaged one is set aside (secrets.json.corrupt-<time>), logged at critical
    // level, and the store starts empty: the service still starts.
    void load();

    // [{name, createdAt, updatedAt}] sorted by name; never a value.
    QJsonArray list() const;
    QJsonObject describe(const QString &name) const;
    bool contains(const QString &name) const { return m_secrets.contains(name); }
    // Creates or replaces; *created says which. Written to disk before it is acknowledged.
    Status set(const QString &name, const QString &value, bool *created);
    Status remove(const QString &name);

    // For config transfer. addAll: every name new and valid (the caller validated), all written
    // in one atomic file write or none; removeAll undoes it.
    struct NamedValue {
        QString name;
        QString value;
    };
    Status addAll(const QList<NamedValue> &secrets);
    Status removeAll(const QStringList &names);
    // [{name, value}] by name: values leave the store only for an export that asked for them.
    QJsonArray exportValues() const;
    int count() const { return int(m_secrets.size()); }

    // {{NAME}} (NAME as validateName) -> the value, in one pass (a value is never expanded again).
    // Any other "{{...}}" is left alone: Go templates and the like stay usable. Unknown names ->
    // Invalid/unknown_secret naming all of them; nothing else happens.
    Result<QString> expand(const QString &command) const;
    // The NAMEs of the {{NAME}} placeholders of `text`, in order, as expand() reads them.
    static QStringList placeholderNames(const QString &text);
    // Every value, UTF-8, for masking output.
    QList<QByteArray> values() const;

    // [A-Z][A-Z0-9_]*, at most kMaxNameChars.
    static Status validateName(const QString &name);
    static Status validateValue(const QString &value);

private:
    struct Entry {
        QString value;
        qint64 createdAt = 0;
        qint64 updatedAt = 0;
    };
    Status save(const QMap<QString, Entry> &secrets) const;
    QString parse(const QByteArray &bytes); // empty on success, else what is wrong

    QString m_path;
    Clock m_clock;
    QMap<QString, Entry> m_secrets;
};

} // namespace flotilla
