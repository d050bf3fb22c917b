#include "base/ProcessPrivacy.h"

#include <cstdlib>
#include <cstring>
#include <sys/prctl.h>
#include <unistd.h>

namespace flotilla {

int wipeEnvironmentVariable(const char *name) {
    const size_t nameLength = std::strlen(name);
    int wiped = 0;
    // The entries still point into the block the kernel set up (nothing in flotillad calls
    // setenv before this), which is what /proc/<pid>/environ shows.
    for (char **entry = environ; entry && *entry; ++entry) {
        char *e = *entry;
        if (std::strncmp(e, name, nameLength) != 0 || e[nameLength] != '=')
            continue;
        char *value = e + nameLength + 1;
        std::memset(value, '*', std::strlen(value));
        ++wiped;
    }
    ::unsetenv(name); // what is left ("NAME=***") no longer reaches children either
    return wiped;
}

bool forbidInspection() {
    return ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
}

} // namespace flotilla
