// An edge file reaching up to the engine floor: must not build.
#include "agents/AgentRuntime.h"
