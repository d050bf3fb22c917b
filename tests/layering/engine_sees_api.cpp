// An engine file reaching up to the api floor: must not build.
#include "controllers/AgentsController.h"
