#include "client/ServiceClient.h"
