#include "base/ChildProcess.h"

#include <atomic>
#include <csignal>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace flotilla {

namespace {
std::atomic<mode_t> g_childUmask{022};
} // namespace

void setChildUmask(mode_t mask) {
    g_childUmask.store(mask & 0777);
}

mode_t childUmask() {
    return g_childUmask.load();
}

void prepareChildProcess() {
    ::setpgid(0, 0);                    // own group: a stop or kill reaches grandchildren too
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan if flotillad itself is killed
    ::umask(g_childUmask.load());       // files in the user's projects get the user's mask
}

} // namespace flotilla
