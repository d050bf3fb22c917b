#pragma once
// The part of the composition root that builds what shapes agents and what runs beside them:
// skills, classes, areas and the composer of each agent's instructions (built before the
// runtime, which asks the composer before every turn); then saved prompts, 3D models, hooks and
// buildings with their controllers and config transfers (built once the runtime, the hub and
// the secrets exist). ServiceApp owns one and calls its steps in start() and shutdown().

#include "base/Clock.h"
#include "base/Error.h"

#include <QProcessEnvironment>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace flotilla {

class AgentRegistry;
class AgentRuntime;
class AgentShaper;
class AreaStore;
class AssetStore;
class AssetsController;
class BuildingStore;
class BuildingSupervisor;
class BuildingsController;
class CategoryTransfer;
class ClassCatalog;
class ClassesController;
class ConfigTransfer;
class Database;
class EventHub;
class HookRunner;
class HookStore;
class HooksController;
class HttpServer;
class InstructionComposer;
class NotificationService;
class PromptStore;
class PromptsController;
class ProviderCatalog;
class SecretStore;
class SkillCatalog;
class SkillMaterializer;
class SkillsController;
class SystemPromptStore;
class UsageService;
class WorktreeService;
class SandboxPolicy;

// What the second step takes from the rest of the service.
struct ShapingServices {
    EventHub &hub;
    AgentRuntime &runtime;
    UsageService &usage;
    WorktreeService &worktrees;
    NotificationService &notifications;
    SecretStore &secrets;
    // Where a building of a sandboxed agent runs: in the same kind of sandbox.
    const SandboxPolicy &sandbox;
    // The agents' environment (hooks and buildings run with it, never with a token).
    QProcessEnvironment environment;
    // Every credential the service holds, masked in what buildings print.
    std::function<QList<QByteArray>()> credentials;
    // Whether some client's socket backlog is building up (buildings' output is then merged).
    std::function<bool()> congested;
};

class ShapingParts final {
    Q_DISABLE_COPY_MOVE(ShapingParts)
public:
    // Step 1: the catalogs (read from the database: a failure stops the start), the areas and
    // the composer; agent creation gets the classes' defaults.
    static Result<std::unique_ptr<ShapingParts>> load(Database &db, AgentRegistry &agents,
                                                      const ProviderCatalog &providers,
                                                      const SystemPromptStore &prompt,
                                                      const Clock &clock, const QString &dataDir);
    ~ShapingParts();

    AgentShaper &shaper();
    AreaStore &areas() { return *m_areas; }

    // Step 2: the stores, runners and controllers of prompts, 3D models, hooks and buildings.
    void buildServices(const ShapingServices &services);
    // Every category this part holds, for config export and import.
    void addTransfers(ConfigTransfer &transfer);
    // Routes of classes, skills, prompts, 3D models, hooks and buildings, in that order (the
    // router's, and the REST fuzzer's route numbers, follow it).
    void registerRoutes(HttpServer &http);
    // After the port is bound: autostart buildings.
    void started();
    // Before the runtime stops: no hook runs for what the shutdown causes.
    void stopHooks();
    // After the runtime stopped: every building's process group ends.
    void stopBuildings();
    // Before the rest of the service goes: the controllers and what runs (the catalogs and the
    // composer stay until this object goes, after the runtime that asks them).
    void releaseServices();

    HookStore &hookStore() { return *m_hookStore; }
    HookRunner &hookRunner() { return *m_hookRunner; }
    BuildingSupervisor &buildings() { return *m_buildings; }

private:
    ShapingParts(Database &db, AgentRegistry &agents, const Clock &clock);

    Database &m_db;
    AgentRegistry &m_agents;
    Clock m_clock;
    std::unique_ptr<SkillCatalog> m_skills;
    std::unique_ptr<ClassCatalog> m_classes;
    std::unique_ptr<AreaStore> m_areas;
    std::unique_ptr<SkillMaterializer> m_skillFiles;
    std::unique_ptr<InstructionComposer> m_composer;
    std::unique_ptr<PromptStore> m_promptStore;
    std::unique_ptr<AssetStore> m_assetStore;
    std::unique_ptr<HookStore> m_hookStore;
    std::unique_ptr<HookRunner> m_hookRunner;
    std::unique_ptr<BuildingStore> m_buildingStore;
    std::unique_ptr<BuildingSupervisor> m_buildings;
    std::vector<std::unique_ptr<CategoryTransfer>> m_transfers;
    std::unique_ptr<ClassesController> m_classesController;
    std::unique_ptr<SkillsController> m_skillsController;
    std::unique_ptr<PromptsController> m_promptsController;
    std::unique_ptr<AssetsController> m_assetsController;
    std::unique_ptr<HooksController> m_hooksController;
    std::unique_ptr<BuildingsController> m_buildingsController;
};

} // namespace flotilla
