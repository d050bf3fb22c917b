#include "core/OutputModel.h"
