#pragma once
// What other processes of the machine may learn of flotillad itself (docs/security.md).
//
// A variable's value stays in the environment block the kernel gave the process at exec, which
// /proc/<pid>/environ reads, even after unsetenv(): an agent or exec command (run as the same
// user) read AUTH_TOKEN there with `tr '\0' '\n' < /proc/$PPID/environ`. Once the service has
// read its token, the value is overwritten in place and the variable removed.
// PR_SET_DUMPABLE 0 then makes /proc/<pid>/{environ,mem,...} root's and forbids ptrace by other
// processes of the same user, so the token in the service's memory is not in plain view either.
//
// Called by main() only: the in-process test service must stay debuggable.

namespace flotilla {

// Overwrites the value of every `name=` entry of the process's environment with '*' and removes
// the variable. Returns how many entries were wiped.
int wipeEnvironmentVariable(const char *name);

// prctl(PR_SET_DUMPABLE, 0). Returns false (errno set) when the kernel refused.
bool forbidInspection();

} // namespace flotilla
