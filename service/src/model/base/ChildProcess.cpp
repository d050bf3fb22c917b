#include "base/ChildProcess.h"

#include "base/Logging.h"
#include "base/Sandbox.h"

#include <QFile>
#include <QProcess>

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

namespace {
// The host pid of the sandbox's own pid 1: outer bwrap's only child (it forks it into the new
// PID namespace; with --new-session that pid 1 leads the session and group the command runs in).
// 0 when there is none (not started yet, already gone).
pid_t innerLeaderOf(qint64 pid) {
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
    if (!children.open(QIODevice::ReadOnly))
        return 0;
    const QByteArray first = children.readAll().simplified().split(' ').value(0);
    bool ok = false;
    const qint64 inner = first.toLongLong(&ok);
    return ok && inner > 0 ? pid_t(inner) : 0;
}
} // namespace

void applyLaunchPlan(QProcess &process, const LaunchPlan &plan) {
    process.setProgram(plan.program);
    process.setArguments(plan.arguments);
    process.setWorkingDirectory(plan.cwd);
    process.setProcessEnvironment(plan.environment);
    process.setChildProcessModifier(&prepareChildProcess);
}

void signalLaunched(qint64 pid, bool sandboxed, int signal) {
    if (pid <= 0)
        return;
    // SIGKILL to the outer group: bwrap dies, its pid 1 follows (--die-with-parent) and the PID
    // namespace with everything in it. Any other signal to bwrap would do the same without the
    // grace the signal is meant to give, so it goes to the command's session instead.
    if (sandboxed && signal != SIGKILL) {
        const pid_t inner = innerLeaderOf(pid);
        // ESRCH: pid 1 exists but has not made its session yet (just started).
        if (inner > 0 && ::kill(-inner, signal) == 0)
            return;
        qCDebug(lcSandbox) << "no sandbox session under" << pid << "yet: signalling its group";
    }
    ::kill(-pid_t(pid), signal);
}

ChildExit decodeExit(bool sandboxed, int code, int qprocessExitStatus) {
    ChildExit out;
    if (qprocessExitStatus == QProcess::CrashExit)
        out.signal = code; // QProcess gives the signal's number as the code of a crash
    else if (sandboxed && code > 128 && code <= 128 + 64)
        out.signal = code - 128; // bwrap's pid 1 exits 128+N when the command died of signal N
    else
        out.exitCode = code;
    return out;
}

} // namespace flotilla
