#pragma once
// What the parts of config import share (ConfigValidation.cpp, SecretTransfer, the feature
// transfers of CategoryTransfer.h and the stores they check with): refusals that name where in
// the document they are, a category's list, the {category, name} of a conflict, and the
// PendingImport of a category whose items are written in one step and removed again by their
// keys.

#include "base/Error.h"
#include "organization/CategoryTransfer.h"
#include "storage/CatalogStore.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QStringList>

#include <functional>
#include <memory>

namespace flotilla::transfer {

// Prefixes a validation error with where in the document it is, so the client can find it.
Error at(const QString &where, Error e);
// 400 wrong_type "<where> must be <what>".
Error wrongType(const QString &where, const QString &what);
// The list of `category` in `given`: absent or null -> [], anything but an array -> 400
// wrong_type naming categories.<category>.
Result<QJsonArray> arrayOf(const QJsonObject &given, QLatin1String category);
// An entry of the document whose name exists already (ImportPlan::conflicts).
QJsonObject conflict(const QString &category, const QString &name);
// The agent that `o` names by `agentName` (taken out of `o`; empty: none), `o` being the entry at
// `where` or its member `member` ("filter"). An agentId is refused: ids are each service's own.
Result<QString> takeAgentName(QJsonObject &o, const QString &where,
                              const QString &member = QString());

// A category's checked items, not written yet.
struct PendingItems {
    QLatin1String category; // for the import summary's count
    qsizetype count = 0;
    QString what; // the items, as the log names them: "saved prompts"
    QMessageLogger::CategoryFunction log = nullptr; // where a failed undo is logged
};
// Writes the items all or nothing; the keys written.
using WriteItems = std::function<Result<QStringList>(const ImportIds &ids)>;
// Removes the items of those keys (undoing the import).
using RemoveItems = std::function<Status(const QStringList &keys)>;
// The rows of the items, made when the import is applied: new keys, references resolved.
using MakeRows = std::function<Result<QList<CatalogStore::Item>>(const ImportIds &ids)>;

std::shared_ptr<PendingImport> pendingImport(PendingItems items, WriteItems write,
                                             RemoveItems remove);
// For items kept in a CatalogStore: `rows` put in one transaction, removed by their keys.
std::shared_ptr<PendingImport> pendingRows(PendingItems items, CatalogStore &store, MakeRows rows);

} // namespace flotilla::transfer
