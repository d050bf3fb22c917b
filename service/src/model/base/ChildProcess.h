#pragma once
// What every child flotillad starts (agents' CLI, exec shells) gets right after fork, before
// exec: its own process group, death with flotillad, and the user's umask.
//
// flotillad runs with umask 077 so its own files stay private, but agents and exec commands
// create files in the user's projects: those must get the mask the user started flotillad with
// (usually 022), not ours.
//
// In base/ because both agents/ and exec/ start children and main() sets the mask: a helper of
// the lowest layer, not of the composition root.

#include <sys/types.h>

namespace flotilla {

// Called once by main() with the mask it replaced. Default (tests, embedders): 022.
void setChildUmask(mode_t mask);
mode_t childUmask();

// For QProcess::setChildProcessModifier: async-signal-safe calls only.
void prepareChildProcess();

} // namespace flotilla
