#pragma once
// Wire names of usage and budgets: an agent's `usage` and `budget`, its `idleTimeoutSeconds`,
// GET /api/usage, the budget_exceeded event and its 409. Keys shared with other areas (agentId,
// agentName, message...) stay in WireNames.h.

#include "protocol/WireNames.h"

namespace flotilla::wire::usage {

using ::flotilla::wire::Name;

namespace msg {
// A budget was reached by a turn's usage (once per crossing).
inline constexpr Name BudgetExceeded{"budget_exceeded"};
} // namespace msg

namespace code {
// 409: a message for an agent whose own budget or whose boss's team budget is reached.
inline constexpr Name BudgetExceeded{"budget_exceeded"};
} // namespace code

namespace key {
// On the agent
inline constexpr Name IdleTimeoutSeconds{"idleTimeoutSeconds"};
inline constexpr Name Usage{"usage"};
inline constexpr Name Budget{"budget"};
// A usage object
inline constexpr Name Turns{"turns"};
inline constexpr Name InputTokens{"inputTokens"};
inline constexpr Name OutputTokens{"outputTokens"};
inline constexpr Name CacheReadTokens{"cacheReadTokens"};
inline constexpr Name CostUsd{"costUsd"};
// A budget object (costUsd as above)
inline constexpr Name Tokens{"tokens"};
inline constexpr Name Period{"period"};
// GET /api/usage
inline constexpr Name GroupBy{"groupBy"};
inline constexpr Name From{"from"};
inline constexpr Name To{"to"};
inline constexpr Name Total{"total"};
inline constexpr Name Groups{"groups"};
inline constexpr Name BossId{"bossId"};
inline constexpr Name BossName{"bossName"};
inline constexpr Name AgentIds{"agentIds"};
inline constexpr Name Day{"day"};
inline constexpr Name Deleted{"deleted"}; // an agent group of an agent deleted since
// budget_exceeded
inline constexpr Name Scope{"scope"};
inline constexpr Name BudgetOwnerId{"budgetOwnerId"};
inline constexpr Name BudgetOwnerName{"budgetOwnerName"};
inline constexpr Name Used{"used"};
} // namespace key

namespace period {
inline constexpr Name Total{"total"};
inline constexpr Name Day{"day"};
} // namespace period

namespace groupby {
inline constexpr Name Agent{"agent"};
inline constexpr Name Boss{"boss"};
inline constexpr Name Day{"day"};
} // namespace groupby

namespace scope {
inline constexpr Name Agent{"agent"}; // the agent's own budget
inline constexpr Name Team{"team"};   // the budget of a boss over its team
} // namespace scope

} // namespace flotilla::wire::usage
