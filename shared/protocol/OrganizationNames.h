#pragma once
// Wire names of the organization features: areas, bulk delete and move-area, focus-agent,
// the activity log and config export/import. Shared by service, monitor and tests.
// Keys every area uses (id, name, agentId, message, timestamp...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::org {

using ::flotilla::wire::Name;

// Server -> client events.
namespace msg {
inline constexpr Name AreaCreated{"area_created"}; // payload: area
inline constexpr Name AreaDeleted{"area_deleted"}; // payload: {id, name}
inline constexpr Name FocusAgent{"focus_agent"};   // payload: {agentId, agentName}
inline constexpr Name Activity{"activity"};        // payload: activity entry
} // namespace msg

namespace key {
// Area
inline constexpr Name Color{"color"};
// Activity entry
inline constexpr Name Kind{"kind"};
inline constexpr Name Activities{"activities"};
// Config document
inline constexpr Name ExportedAt{"exportedAt"};
inline constexpr Name Categories{"categories"};
// Import summary
inline constexpr Name DryRun{"dryRun"};
inline constexpr Name Imported{"imported"};
inline constexpr Name Agents{"agents"};
inline constexpr Name Areas{"areas"};
inline constexpr Name Skipped{"skipped"};
inline constexpr Name Conflicts{"conflicts"};
inline constexpr Name Category{"category"};
// Top-level key of an export document, present only with includeSecrets=true: [{name, value}].
inline constexpr Name Secrets{"secrets"};
} // namespace key

// Query parameters.
namespace param {
inline constexpr Name Limit{"limit"};
inline constexpr Name AgentId{"agentId"};
inline constexpr Name Categories{"categories"};
inline constexpr Name IncludeSecrets{"includeSecrets"};
inline constexpr Name DryRun{"dryRun"};
} // namespace param

// `kind` of an activity entry.
namespace activity {
inline constexpr Name AgentCreated{"agent_created"};
inline constexpr Name AgentDeleted{"agent_deleted"};
inline constexpr Name AgentFinished{"agent_finished"}; // back to idle after working
inline constexpr Name AgentError{"agent_error"};
inline constexpr Name AgentStopped{"agent_stopped"};
inline constexpr Name AgentMoved{"agent_moved"}; // areaId changed (set or cleared)
inline constexpr Name AreaCreated{"area_created"};
inline constexpr Name AreaDeleted{"area_deleted"};
inline constexpr Name ConfigImported{"config_imported"};
} // namespace activity

// Config categories (GET /api/config/categories lists all twelve; Flotilla holds data for the
// first three, the others export as empty and import only when empty).
namespace category {
inline constexpr Name Agents{"agents"};
inline constexpr Name Areas{"areas"};
inline constexpr Name SystemSettings{"system-settings"};
inline constexpr Name Buildings{"buildings"};
inline constexpr Name Skills{"skills"};
inline constexpr Name CustomClasses{"custom-classes"};
inline constexpr Name ClassInstructions{"class-instructions"};
inline constexpr Name AgentPrompts{"agent-prompts"};
inline constexpr Name Custom3dModels{"custom-3d-models"};
inline constexpr Name CustomClassIcons{"custom-class-icons"};
inline constexpr Name Hooks{"hooks"};
inline constexpr Name Permissions{"permissions"};
} // namespace category

// Machine codes specific to this slice (the general ones are in wire::code).
namespace code {
inline constexpr Name UnknownCategory{"unknown_category"};
inline constexpr Name UnsupportedVersion{"unsupported_version"};
inline constexpr Name UnsupportedCategory{"unsupported_category"};
} // namespace code

} // namespace flotilla::wire::org
