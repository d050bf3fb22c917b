// A model file reaching up to the edge floor: must not build.
#include "http/HttpServer.h"
