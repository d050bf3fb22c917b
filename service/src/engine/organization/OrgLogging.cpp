#include "organization/OrgLogging.h"

Q_LOGGING_CATEGORY(lcOrg, "flotilla.org", QtInfoMsg)
