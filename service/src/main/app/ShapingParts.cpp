#include "app/ShapingParts.h"

#include "base/Logging.h"
#include "buildings/BuildingStore.h"
#include "buildings/BuildingSupervisor.h"
#include "buildings/BuildingTransfer.h"
#include "controllers/AssetsController.h"
#include "controllers/BuildingsController.h"
#include "controllers/ClassesController.h"
#include "controllers/HooksController.h"
#include "controllers/PromptsController.h"
#include "controllers/SkillsController.h"
#include "domain/AgentRegistry.h"
#include "hooks/HookFeed.h"
#include "hooks/HookRunner.h"
#include "hooks/HookStore.h"
#include "hooks/HookTransfer.h"
#include "organization/AreaStore.h"
#include "organization/ConfigTransfer.h"
#include "shaping/AssetStore.h"
#include "shaping/AssetTransfer.h"
#include "shaping/ClassCatalog.h"
#include "shaping/InstructionComposer.h"
#include "shaping/PromptStore.h"
#include "shaping/PromptTransfer.h"
#include "shaping/ShapingTransfer.h"
#include "shaping/SkillCatalog.h"
#include "shaping/SkillMaterializer.h"

#include <QDir>

namespace flotilla {

ShapingParts::ShapingParts(Database &db, AgentRegistry &agents, const Clock &clock)
    : m_db(db)
    , m_agents(agents)
    , m_clock(clock) {
}

ShapingParts::~ShapingParts() {
    releaseServices();
    m_agents.setClassDefaults(nullptr);
}

Result<std::unique_ptr<ShapingParts>>
ShapingParts::load(Database &db, AgentRegistry &agents, const ProviderCatalog &providers,
                   const SystemPromptStore &prompt, const Clock &clock, const QString &dataDir) {
    std::unique_ptr<ShapingParts> parts(new ShapingParts(db, agents, clock));
    parts->m_skills = std::make_unique<SkillCatalog>(db, clock);
    parts->m_classes = std::make_unique<ClassCatalog>(db, providers, *parts->m_skills, clock);
    parts->m_areas = std::make_unique<AreaStore>(db, clock);
    for (const auto &[what, status] : {std::pair{"skills", parts->m_skills->load()},
                                       std::pair{"classes", parts->m_classes->load()},
                                       std::pair{"areas", parts->m_areas->load()}}) {
        if (status)
            return Error::internal(
                status->code,
                QStringLiteral("cannot read %1: %2").arg(QLatin1String(what), status->message));
    }
    agents.setClassDefaults(parts->m_classes.get());
    parts->m_skillFiles =
        std::make_unique<SkillMaterializer>(dataDir + QStringLiteral("/agent-skills"));
    parts->m_composer = std::make_unique<InstructionComposer>(
        prompt, *parts->m_areas, *parts->m_classes, *parts->m_skills, *parts->m_skillFiles);
    // The skill files of an agent go with it; the catalog is the connection's context.
    QObject::connect(&agents, &AgentRegistry::agentDeleted, parts->m_skills.get(),
                     [files = parts->m_skillFiles.get()](const QString &id) { files->forget(id); });
    return parts;
}

AgentShaper &ShapingParts::shaper() {
    return *m_composer;
}

void ShapingParts::buildServices(const ShapingServices &s) {
    // Like areas, a store that cannot be read starts empty rather than stopping the service.
    m_promptStore = std::make_unique<PromptStore>(m_db, m_agents, m_clock);
    if (Status e = m_promptStore->load())
        qCCritical(lcApp).noquote() << "saved prompts could not be read:" << e->message;
    m_assetStore = std::make_unique<AssetStore>(m_db, m_clock);
    if (Status e = m_assetStore->load())
        qCCritical(lcApp).noquote() << "3D models could not be read:" << e->message;

    // Hooks: the store, the runner the service's events feed (HookFeed). A hook without an agent
    // to take its cwd from runs in the agents' HOME.
    m_hookStore = std::make_unique<HookStore>(m_db, m_agents, m_clock);
    if (Status e = m_hookStore->load())
        qCCritical(lcApp).noquote() << "hooks could not be read:" << e->message;
    HookRunnerConfig hookConfig;
    hookConfig.environment = s.environment; // without the token: the runner sees to it
    hookConfig.homeDir = s.environment.value(QStringLiteral("HOME"), QDir::homePath());
    m_hookRunner = std::make_unique<HookRunner>(*m_hookStore, m_agents, hookConfig, m_clock);
    feedHooks(*m_hookRunner, s.notifications, m_agents, s.runtime, s.usage, s.worktrees, s.hub);

    // Buildings: the store and the supervisor that runs them. A deleted area's buildings stay,
    // without an area.
    m_buildingStore = std::make_unique<BuildingStore>(
        m_db, m_agents, s.secrets,
        [areas = m_areas.get()](const QString &areaId) { return areas->find(areaId) != nullptr; },
        m_clock);
    if (Status e = m_buildingStore->load())
        qCCritical(lcApp).noquote() << "buildings could not be read:" << e->message;
    QObject::connect(
        m_areas.get(), &AreaStore::areaDeleted, m_buildingStore.get(),
        [store = m_buildingStore.get()](const Area &area) { store->forgetArea(area.id); });
    BuildingsConfig buildingsConfig;
    buildingsConfig.environment = s.environment;
    // A building's output is broadcast to every client: `env` must not show the token there.
    buildingsConfig.environment.remove(QStringLiteral("AUTH_TOKEN"));
    buildingsConfig.environment.remove(QStringLiteral("FLOTILLA_TOKEN"));
    buildingsConfig.stream.congested = s.congested;
    m_buildings =
        std::make_unique<BuildingSupervisor>(*m_buildingStore, m_agents, s.secrets, s.sandbox,
                                             m_clock, std::move(buildingsConfig), s.credentials);

    m_classesController = std::make_unique<ClassesController>(*m_classes, m_agents, s.hub);
    m_skillsController = std::make_unique<SkillsController>(*m_skills, *m_classes, m_agents, s.hub);
    m_promptsController = std::make_unique<PromptsController>(*m_promptStore, m_agents, s.hub);
    m_assetsController = std::make_unique<AssetsController>(*m_assetStore, s.hub);
    m_hooksController = std::make_unique<HooksController>(*m_hookStore, *m_hookRunner, s.hub);
    m_buildingsController =
        std::make_unique<BuildingsController>(*m_buildingStore, *m_buildings, s.hub);
}

void ShapingParts::addTransfers(ConfigTransfer &transfer) {
    // Skills and classes before the agents that name them; prompts, hooks, buildings and 3D
    // models after the agents and areas they refer to (CategoryTransfer::phase).
    m_transfers.push_back(std::make_unique<ShapingTransfer>(*m_classes, *m_skills));
    m_transfers.push_back(std::make_unique<PromptTransfer>(*m_promptStore));
    m_transfers.push_back(std::make_unique<HookTransfer>(*m_hookStore, m_clock));
    m_transfers.push_back(std::make_unique<BuildingTransfer>(*m_buildingStore, m_clock));
    m_transfers.push_back(std::make_unique<AssetTransfer>(*m_assetStore));
    for (const auto &t : m_transfers)
        transfer.addTransfer(*t);
    transfer.setSkillLookup(
        [skills = m_skills.get()](const QString &slug) { return skills->contains(slug); });
}

void ShapingParts::registerRoutes(HttpServer &http) {
    m_classesController->registerRoutes(http);
    m_skillsController->registerRoutes(http);
    m_promptsController->registerRoutes(http);
    m_assetsController->registerRoutes(http);
    m_hooksController->registerRoutes(http);
    m_buildingsController->registerRoutes(http);
}

void ShapingParts::started() {
    if (m_buildings)
        m_buildings->startAutostart();
}

void ShapingParts::stopHooks() {
    if (m_hookRunner)
        m_hookRunner->shutdown();
}

void ShapingParts::stopBuildings() {
    if (m_buildings)
        m_buildings->shutdown();
}

void ShapingParts::releaseServices() {
    // Controllers first, then what runs (buildings' processes ended in stopBuildings(); the
    // runner ends what still runs), then the stores they read.
    m_buildingsController.reset();
    m_hooksController.reset();
    m_assetsController.reset();
    m_promptsController.reset();
    m_skillsController.reset();
    m_classesController.reset();
    m_buildings.reset();
    m_buildingStore.reset();
    m_hookRunner.reset();
    m_hookStore.reset();
    m_assetStore.reset();
    m_promptStore.reset();
}

} // namespace flotilla
