#include "core/ListModels.h"
