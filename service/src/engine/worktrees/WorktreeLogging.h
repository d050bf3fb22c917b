#pragma once
// The worktree module's logging category: git runs (each command at debug level,
// failures at warning), worktrees made, kept and removed, merges. Enable with
// QT_LOGGING_RULES="flotilla.worktrees.debug=true".

#include <QLoggingCategory>

Q_DECLARE_LOGGING_CATEGORY(lcWorktrees)
