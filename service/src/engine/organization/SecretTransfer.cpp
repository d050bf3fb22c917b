#include "organization/SecretTransfer.h"

#include "organization/TransferSupport.h"
#include "protocol/ExecNames.h"
#include "protocol/OrganizationNames.h"
#include "protocol/WireNames.h"

#include <QJsonObject>
#include <QSet>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace ok = wire::org::key;

// A refusal names the entry, never the value.
using transfer::at;
using transfer::wrongType;

Result<SecretImport> parseSecretImport(const QJsonValue &value, const SecretStore &store) {
    if (!value.isArray())
        return wrongType(QStringLiteral("field 'secrets'"), QStringLiteral("an array"));
    const QJsonArray list = value.toArray();
    if (store.count() + list.size() > SecretStore::kMaxSecrets)
        return Error::invalid(c::InvalidValue,
                              QStringLiteral("secrets: at most %1 secrets may exist, %2 exist and "
                                             "the document adds %3")
                                  .arg(SecretStore::kMaxSecrets)
                                  .arg(store.count())
                                  .arg(list.size()));
    SecretImport out;
    QSet<QString> names;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("secrets[%1]").arg(i);
        if (!list.at(i).isObject())
            return wrongType(where, QStringLiteral("an object"));
        const QJsonObject o = list.at(i).toObject();
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            if (it.key() != k::Name_ && it.key() != wire::exec::key::Value)
                return Error::invalid(c::UnknownField,
                                      QStringLiteral("%1: unknown field '%2'; allowed: name, value")
                                          .arg(where, it.key()));
        }
        for (QLatin1String field :
             {QLatin1String(k::Name_), QLatin1String(wire::exec::key::Value)}) {
            if (!o.contains(field))
                return Error::badRequest(
                    c::MissingField,
                    QStringLiteral("%1: field '%2' is required").arg(where, field));
            if (!o.value(field).isString())
                return wrongType(QStringLiteral("%1.%2").arg(where, field),
                                 QStringLiteral("a string"));
        }
        const QString name = o.value(k::Name_).toString();
        if (Status e = SecretStore::validateName(name))
            return at(where, *e);
        const QString secret = o.value(wire::exec::key::Value).toString();
        if (Status e = SecretStore::validateValue(secret))
            return at(where, *e);
        if (names.contains(name))
            return Error::invalid(c::InvalidValue,
                                  QStringLiteral("%1: secret '%2' appears twice").arg(where, name));
        names.insert(name);
        if (store.contains(name))
            out.conflicts.append(transfer::conflict(ok::Secrets, name));
        out.secrets.append({name, secret});
    }
    return out;
}

} // namespace flotilla
