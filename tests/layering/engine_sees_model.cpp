// The control: an engine file including a lower floor builds, so a failing probe fails for its
// include.
#include "storage/Database.h"
