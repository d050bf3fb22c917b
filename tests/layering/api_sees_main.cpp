// An api file reaching up to the composition root: must not build.
#include "app/ServiceApp.h"
