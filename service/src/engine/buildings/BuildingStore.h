#pragma once
// Buildings as the user configured them: long-running processes the service keeps for the user
// (a dev server, a database, a watcher). One JSON row per building in the catalog (kind
// "buildings", storage/CatalogStore.h), written before it is acknowledged. This class owns the
// configuration and its validation only; what runs is BuildingSupervisor's.
//
// References are checked here because they need the service's state: `agentId` must name an
// agent, `areaId` an area, every {{NAME}} in `env` a secret (as exec substitutes them; for config
// import, also one its document brings: BuildingCheck), and names are unique case-insensitively.

#include "base/Clock.h"
#include "base/Error.h"
#include "protocol/WireNames.h"
#include "storage/CatalogStore.h"

#include <QJsonObject>
#include <QMap>
#include <QObject>
#include <QStringList>

#include <functional>

namespace flotilla {

class AgentRegistry;
class Database;
class SecretStore;

enum class RestartPolicy { No, OnFailure, Always };

QLatin1String restartPolicyName(RestartPolicy policy);

// How BuildingStore::check reads a body that is not POST /api/buildings's: config import names the
// agent `agentName` (so its refusals say that), and its document may bring the secrets that env's
// {{NAME}}s name.
struct BuildingCheck {
    QLatin1String agentField = wire::key::AgentId;
    std::function<bool(const QString &name)> secretKnown; // empty: this service's SecretStore
};

struct BuildingConfig {
    QString id;
    QString name;
    QString cwd;                // as given; empty when the building runs in its agent's cwd
    QStringList command;        // argv, run without a shell
    QMap<QString, QString> env; // added to the service's environment; {{NAME}} = a secret
    bool autostart = false;
    RestartPolicy restart = RestartPolicy::OnFailure;
    QString url;     // empty: JSON null
    QString areaId;  // empty: JSON null
    QString agentId; // empty: JSON null
    qint64 createdAt = 0;
    qint64 updatedAt = 0;

    // The stored form (also what config export starts from).
    QJsonObject toJson() const;
    // Lenient decoder for stored rows: false only when id, name or command is missing.
    static bool fromJson(const QJsonObject &json, BuildingConfig *out);
};

class BuildingStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(BuildingStore)
public:
    static constexpr int kNameMax = 100;
    static constexpr int kMaxBuildings = 200;
    static constexpr int kMaxArgs = 256;
    static constexpr int kMaxCommandBytes = 64 * 1024; // argv together, UTF-8
    static constexpr int kMaxEnv = 256;
    static constexpr int kMaxEnvValueBytes = 32 * 1024;
    static constexpr int kMaxUrlChars = 2048;

    // Whether an area with this id exists (the areas belong to the organization module).
    using AreaLookup = std::function<bool(const QString &areaId)>;

    BuildingStore(Database &db, const AgentRegistry &agents, const SecretStore &secrets,
                  AreaLookup areaExists, Clock clock, QObject *parent = nullptr);
    ~BuildingStore() override;

    // Reads every stored building. One whose agent no longer exists (the service stopped between
    // the agent's deletion and its building's) is deleted now.
    Status load();

    QList<BuildingConfig> buildings() const; // creation order
    const BuildingConfig *find(const QString &id) const;
    int count() const { return m_catalog.count(); }

    // POST /api/buildings: a body checked entirely (fields, references, name) and stored.
    Result<BuildingConfig> create(const QJsonObject &body);
    // PATCH: the fields given replace the stored ones (`env` as a whole); null clears url,
    // areaId, agentId and cwd.
    Result<BuildingConfig> patch(const QString &id, const QJsonObject &body);
    Status remove(const QString &id);
    // What create() would store, storing nothing (config import checks every entry first).
    Result<BuildingConfig> check(const QJsonObject &body, const BuildingCheck &how = {}) const;
    // An area was deleted: its buildings keep running without one.
    void forgetArea(const QString &areaId);

    // The rows themselves, for config transfer (putAll/removeAll in its transaction); the
    // signals below follow its changes too.
    CatalogStore &catalog() { return m_catalog; }

Q_SIGNALS:
    void buildingCreated(const flotilla::BuildingConfig &building);
    void buildingChanged(const flotilla::BuildingConfig &building);
    void buildingRemoved(const flotilla::BuildingConfig &building);

private:
    Result<BuildingConfig> parse(const QJsonObject &body, const BuildingConfig *base,
                                 QLatin1String agentField = wire::key::AgentId) const;
    Status checkReferences(const BuildingConfig &b, const BuildingCheck &how = {}) const;
    void onStored(const QString &key, const QJsonObject &item, bool created);
    void onRemoved(const QString &key, const QJsonObject &item);

    CatalogStore m_catalog;
    const AgentRegistry &m_agents;
    const SecretStore &m_secrets;
    AreaLookup m_areaExists;
    Clock m_clock;
    QHash<QString, BuildingConfig> m_buildings; // decoded m_catalog rows, by id
};

} // namespace flotilla
