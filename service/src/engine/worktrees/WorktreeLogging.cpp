#include "worktrees/WorktreeLogging.h"

Q_LOGGING_CATEGORY(lcWorktrees, "flotilla.worktrees", QtInfoMsg)
