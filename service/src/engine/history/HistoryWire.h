#pragma once
// The history code spells its wire names through these aliases; the names themselves live in the
// shared protocol library (protocol/HistoryNames.h), next to every other wire constant.

#include "protocol/HistoryNames.h"

namespace flotilla::history {
namespace key = ::flotilla::wire::history::key;
namespace entrytype = ::flotilla::wire::history::entrytype;
namespace param = ::flotilla::wire::history::param;
} // namespace flotilla::history
