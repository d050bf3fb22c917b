#include "exec/SecretStore.h"

#include "exec/ExecLog.h"
#include "protocol/ExecNames.h"
#include "storage/FileSafety.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace flotilla {

namespace k = wire::key;
namespace xk = wire::exec::key;
namespace c = wire::code;

namespace {

const QRegularExpression &namePattern() {
    static const QRegularExpression re(QStringLiteral("^[A-Z][A-Z0-9_]*$"));
    return re;
}

const QRegularExpression &placeholderPattern() {
    static const QRegularExpression re(QStringLiteral("\\{\\{([A-Z][A-Z0-9_]*)\\}\\}"));
    return re;
}

} // namespace

SecretStore::SecretStore(QString path, Clock clock)
    : m_path(std::move(path))
    , m_clock(std::move(clock)) {
}

void SecretStore::load() {
    QFile file(m_path);
    if (!file.exists())
        return;
    QString problem;
    if (!file.open(QIODevice::ReadOnly)) {
        problem = file.errorString();
    } else {
        problem = parse(file.readAll());
        file.close();
        if (problem.isEmpty()) {
            // A copy restored from a backup may have lost its mode; values must stay private.
            const auto privateMode = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
            if ((file.permissions() &
                 ~(privateMode | QFileDevice::ReadUser | QFileDevice::WriteUser)) != 0) {
                qCWarning(lcExec).noquote() << QFileInfo(m_path).fileName()
                                            << "was readable by others; its mode is now 0600";
                file.setPermissions(privateMode);
            }
            return;
        }
    }
    m_secrets.clear();
    const QString aside = setAside(m_path);
    qCCritical(lcExec).noquote()
        << QStringLiteral("%1 was unreadable (%2); it was moved to %3 and the service starts "
                          "with no secrets")
               .arg(QFileInfo(m_path).fileName(), problem, QFileInfo(aside).fileName());
}

QString SecretStore::parse(const QByteArray &bytes) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &err);
    if (err.error != QJsonParseError::NoError)
        return err.errorString();
    const QJsonObject root = doc.object();
    if (!doc.isObject() || !root.value(xk::Secrets).isObject())
        return QStringLiteral("no object field 'secrets'");
    if (root.value(k::Version).toInt(1) > kFormatVersion)
        return QStringLiteral("format version %1 is newer than this flotillad")
            .arg(root.value(k::Version).toInt());
    const QJsonObject secrets = root.value(xk::Secrets).toObject();
    QMap<QString, Entry> loaded;
    for (auto it = secrets.constBegin(); it != secrets.constEnd(); ++it) {
        const QJsonObject o = it.value().toObject();
        // Whole file or nothing: a half-read set would run commands with the wrong values.
        if (validateName(it.key()) || !o.value(xk::Value).isString() ||
            validateValue(o.value(xk::Value).toString()))
            return QStringLiteral("invalid entry '%1'").arg(it.key().left(kMaxNameChars));
        loaded.insert(it.key(),
                      Entry{o.value(xk::Value).toString(), o.value(k::CreatedAt).toInteger(),
                            o.value(k::UpdatedAt).toInteger()});
    }
    m_secrets = std::move(loaded);
    return {};
}

QJsonArray SecretStore::list() const {
    QJsonArray out;
    for (auto it = m_secrets.constBegin(); it != m_secrets.constEnd(); ++it)
        out.append(describe(it.key()));
    return out;
}

QJsonObject SecretStore::describe(const QString &name) const {
    const Entry e = m_secrets.value(name);
    return QJsonObject{{k::Name_, name}, {k::CreatedAt, e.createdAt}, {k::UpdatedAt, e.updatedAt}};
}

Status SecretStore::validateName(const QString &name) {
    if (name.size() > kMaxNameChars || !namePattern().match(name).hasMatch())
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("secret name must match [A-Z][A-Z0-9_]* (at most %1 characters), got "
                           "'%2'")
                .arg(kMaxNameChars)
                .arg(name.left(kMaxNameChars)));
    return std::nullopt;
}

Status SecretStore::validateValue(const QString &value) {
    if (value.isEmpty())
        return Error::invalid(c::InvalidValue, QStringLiteral("field 'value' must not be empty"));
    if (value.size() > kMaxValueChars)
        return Error::invalid(
            c::InvalidValue,
            QStringLiteral("field 'value' is longer than %1 characters").arg(kMaxValueChars));
    // A command is one C string for bash: a NUL would silently cut it.
    if (value.contains(QChar(0)))
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("field 'value' must not contain NUL characters"));
    return std::nullopt;
}

Status SecretStore::set(const QString &name, const QString &value, bool *created) {
    if (Status e = validateName(name))
        return e;
    if (Status e = validateValue(value))
        return e;
    const bool isNew = !m_secrets.contains(name);
    if (isNew && m_secrets.size() >= kMaxSecrets)
        return Error::conflict(
            wire::exec::code::TooManySecrets,
            QStringLiteral("at most %1 secrets can be stored; delete one first").arg(kMaxSecrets));
    const qint64 now = m_clock.nowMs();
    QMap<QString, Entry> next = m_secrets;
    Entry &e = next[name];
    e.value = value;
    e.updatedAt = now;
    if (isNew)
        e.createdAt = now;
    if (Status err = save(next))
        return err;
    m_secrets = std::move(next);
    if (created)
        *created = isNew;
    qCInfo(lcExec).noquote() << "secret" << name << (isNew ? "created" : "replaced");
    return std::nullopt;
}

Status SecretStore::remove(const QString &name) {
    if (Status e = validateName(name))
        return e;
    if (!m_secrets.contains(name))
        return Error::notFound(c::NotFound, QStringLiteral("no secret named '%1'").arg(name));
    QMap<QString, Entry> next = m_secrets;
    next.remove(name);
    if (Status err = save(next))
        return err;
    m_secrets = std::move(next);
    qCInfo(lcExec).noquote() << "secret" << name << "deleted";
    return std::nullopt;
}

Status SecretStore::addAll(const QList<NamedValue> &secrets) {
    if (m_secrets.size() + secrets.size() > kMaxSecrets)
        return Error::conflict(wire::exec::code::TooManySecrets,
                               QStringLiteral("at most %1 secrets can be stored").arg(kMaxSecrets));
    const qint64 now = m_clock.nowMs();
    QMap<QString, Entry> next = m_secrets;
    for (const NamedValue &s : secrets) {
        if (next.contains(s.name))
            return Error::conflict(c::Conflict,
                                   QStringLiteral("secret '%1' exists already").arg(s.name));
        next.insert(s.name, Entry{s.value, now, now});
    }
    if (Status err = save(next))
        return err;
    m_secrets = std::move(next);
    qCInfo(lcExec).noquote() << secrets.size() << "secret(s) added";
    return std::nullopt;
}

Status SecretStore::removeAll(const QStringList &names) {
    QMap<QString, Entry> next = m_secrets;
    for (const QString &name : names)
        next.remove(name);
    if (next.size() == m_secrets.size())
        return std::nullopt;
    if (Status err = save(next))
        return err;
    m_secrets = std::move(next);
    qCInfo(lcExec).noquote() << names.size() << "secret(s) removed";
    return std::nullopt;
}

QJsonArray SecretStore::exportValues() const {
    QJsonArray out;
    for (auto it = m_secrets.constBegin(); it != m_secrets.constEnd(); ++it)
        out.append(QJsonObject{{k::Name_, it.key()}, {xk::Value, it->value}});
    return out;
}

Status SecretStore::save(const QMap<QString, Entry> &secrets) const {
    QJsonObject all;
    for (auto it = secrets.constBegin(); it != secrets.constEnd(); ++it)
        all.insert(it.key(), QJsonObject{{xk::Value, it->value},
                                         {k::CreatedAt, it->createdAt},
                                         {k::UpdatedAt, it->updatedAt}});
    return writeJsonAtomically(m_path,
                               QJsonObject{{k::Version, kFormatVersion}, {xk::Secrets, all}});
}

QStringList SecretStore::placeholderNames(const QString &text) {
    QStringList names;
    auto it = placeholderPattern().globalMatch(text);
    while (it.hasNext())
        names.append(it.next().captured(1));
    return names;
}

Result<QString> SecretStore::expand(const QString &command) const {
    QString out;
    QStringList unknown;
    qsizetype last = 0;
    auto it = placeholderPattern().globalMatch(command);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const QString name = m.captured(1);
        out += QStringView(command).mid(last, m.capturedStart() - last);
        last = m.capturedEnd();
        const auto found = m_secrets.constFind(name);
        if (found == m_secrets.constEnd()) {
            const QString shown = name.left(kMaxNameChars);
            if (!unknown.contains(shown))
                unknown.append(shown);
            continue;
        }
        out += found->value;
    }
    if (!unknown.isEmpty())
        return Error::invalid(wire::exec::code::UnknownSecret,
                              QStringLiteral("unknown secret(s): %1; define them with PUT "
                                             "/api/secrets/<name>")
                                  .arg(unknown.join(QStringLiteral(", "))));
    out += QStringView(command).mid(last);
    return out;
}

QList<QByteArray> SecretStore::values() const {
    QList<QByteArray> out;
    out.reserve(m_secrets.size());
    for (const Entry &e : m_secrets)
        out.append(e.value.toUtf8());
    return out;
}

} // namespace flotilla
