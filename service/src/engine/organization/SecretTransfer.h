#pragma once
// The secrets part of a config document: the top-level "secrets" array [{name, value}], written
// only when an export asks for it (includeSecrets=true) and read by import. Kept apart from the
// categories because it is not one of the spec's twelve and is never exported by default.

#include "base/Error.h"
#include "exec/SecretStore.h"

#include <QJsonArray>
#include <QJsonValue>

namespace flotilla {

struct SecretImport {
    QList<SecretStore::NamedValue> secrets;
    QJsonArray conflicts; // [{category: "secrets", name}] for names the store holds already
};

// Same rules as PUT /api/secrets/:name (names, values, the store's limit), no name twice.
Result<SecretImport> parseSecretImport(const QJsonValue &value, const SecretStore &store);

} // namespace flotilla
