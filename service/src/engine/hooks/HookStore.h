#pragma once
// The hooks behind /api/hooks (docs/api.md "Hooks") and their runs: each hook one JSON row of the
// catalog (kind "hooks", CatalogStore), each finished run one row of `hook_runs`, the newest
// kMaxRuns per hook kept (older ones pruned in the transaction that adds a run). A hook's
// `lastRun` is the newest of its runs, kept in memory, so listing hooks reads no run table.
//
// A stored hook: {id, name, event, filter: {agentId?, class?, areaId?}, command: [argv...],
// cwd: "agent" | "/abs/dir" | null, timeoutSeconds, enabled, createdAt, updatedAt}; the API's
// hook adds lastRun. Bodies are validated here (parse()), for the routes and for config import.

#include "base/Clock.h"
#include "base/Error.h"
#include "storage/CatalogStore.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>

namespace flotilla {

class AgentRegistry;
class Database;

class HookStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HookStore)
public:
    static constexpr int kMaxRuns = 200;           // per hook, newest kept
    static constexpr int kNameMax = 100;           // characters
    static constexpr int kTimeoutMin = 1;          // seconds
    static constexpr int kTimeoutMax = 300;        // seconds
    static constexpr int kTimeoutDefault = 30;     // seconds
    static constexpr int kMaxArgs = 256;           // command elements
    static constexpr int kMaxCommandBytes = 65536; // UTF-8, all elements together
    static constexpr int kMaxFilterText = 200;     // filter.agentId / class / areaId, characters

    HookStore(Database &db, const AgentRegistry &agents, Clock clock, QObject *parent = nullptr);
    ~HookStore() override;

    // The hooks and the newest run of each; runs of hooks that no longer exist are dropped.
    Status load();

    // The events a hook may name: the notification channels' and the hooks' own.
    static const QList<QLatin1String> &events();

    // Every hook as the API shows it (with lastRun), in creation order.
    QJsonArray list() const;
    Result<QJsonObject> get(const QString &id) const;
    // The stored hooks (without lastRun) that are enabled and listen to `event`.
    QList<QJsonObject> hooksFor(QLatin1String event) const;
    // The stored hook, or nullptr. Valid until the next change.
    const QJsonObject *find(const QString &id) const { return m_catalog.find(id); }

    // POST: 201 hook; 400 for a malformed body, 422 for a wrong value (naming the field).
    Result<QJsonObject> create(const QJsonObject &body);
    // PATCH: the fields given replace the stored ones (filter as a whole).
    Result<QJsonObject> update(const QString &id, const QJsonObject &body);
    // DELETE: the hook and its runs.
    Status remove(const QString &id);

    // Newest first (at most kMaxRuns). NotFound for an unknown hook.
    Result<QJsonArray> runs(const QString &id) const;
    // Stores a finished run (HookRunner) and prunes the hook's older ones, in one transaction.
    // NotFound when the hook is gone meanwhile (the run is not kept).
    Status recordRun(const QJsonObject &run);
    // Rows of hook_runs for the hook (what the pruning keeps bounded).
    int runCount(const QString &id) const;

    // A POST body (existing == nullptr) or a PATCH body over `existing`, checked as a whole:
    // the stored hook it makes (a new one without id and timestamps, an existing one with its
    // own, updatedAt unchanged). Config import validates with it.
    Result<QJsonObject> parse(const QJsonObject &body, const QJsonObject *existing) const;

    // The items themselves (config export and import). Changes made through it are announced
    // like the routes' (hookStored, hookRemoved).
    CatalogStore &catalog() { return m_catalog; }

Q_SIGNALS:
    // The hook as the API shows it.
    void hookStored(const QJsonObject &hook, bool created);
    void hookRemoved(const QString &id, const QString &name);

private:
    QJsonObject withLastRun(const QJsonObject &stored) const;
    Error unknown(const QString &id) const;
    void onRemoved(const QString &id, const QJsonObject &hook);

    Database &m_db;
    const AgentRegistry &m_agents;
    Clock m_clock;
    CatalogStore m_catalog;
    QHash<QString, QJsonObject> m_lastRun; // hook id -> its newest run
};

} // namespace flotilla
