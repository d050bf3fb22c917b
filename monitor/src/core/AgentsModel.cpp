#include "core/AgentsModel.h"
