// flotillad: parse options, build the service, run the event loop. Everything else lives in
// flotilla_core (app/ServiceApp.cpp is the composition root).

#include "app/ServerConfig.h"
#include "app/ServiceApp.h"
#include "app/UnixSignals.h"
#include "base/ChildProcess.h"
#include "base/Logging.h"
#include "base/ProcessPrivacy.h"

#include <QCoreApplication>
#include <QTimer>

#include <cstdio>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>

int main(int argc, char *argv[]) {
    // Every file we create (database, WAL, prompt, lock) is private to the user; our children
    // (agents, exec commands) get the user's own mask back.
    flotilla::setChildUmask(::umask(077));
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur =
            files.rlim_max; // each WebSocket client and agent process holds descriptors
        ::setrlimit(RLIMIT_NOFILE, &files);
    }

    // Buffers of 128 KiB and more (a 1,000-agent snapshot is ~0.5 MB per WebSocket client while
    // it is being sent) are mmapped and go back to the kernel when freed. glibc's default raises
    // this threshold after the first such free; from then on they came from the heap, and after
    // 200 clients connected RSS stayed at the burst's peak.
    ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);

    QCoreApplication app(argc, argv);
    flotilla::installSecretSafeLogging();
    QCoreApplication::setApplicationName(QStringLiteral("flotilla"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FLOTILLA_VERSION));

    const auto parsed = flotilla::parseCommandLine(QCoreApplication::arguments(),
                                                   QProcessEnvironment::systemEnvironment());
    if (parsed.exitCode >= 0) {
        std::fprintf(parsed.exitCode == 0 ? stdout : stderr, "%s\n",
                     qUtf8Printable(parsed.message));
        return parsed.exitCode;
    }
    // The token is in the config now: not in /proc/<pid>/environ, not in reach of ptrace.
    flotilla::wipeEnvironmentVariable("AUTH_TOKEN");
    if (!flotilla::forbidInspection())
        std::fprintf(stderr, "flotillad: warning: cannot make the process non-dumpable\n");

    // Before anything can announce us: a SIGTERM that arrives while we start (or right after
    // "listening on") waits in the self-pipe and is handled by the event loop, instead of killing
    // the process with the default action.
    flotilla::UnixSignals signals;
    flotilla::ServiceApp service(parsed.config);
    if (const auto failure = service.start()) {
        std::fprintf(stderr, "flotillad: %s\n", qUtf8Printable(failure->message));
        return failure->exitCode;
    }
    std::fprintf(stderr, "flotillad: listening on %s:%u\n",
                 qUtf8Printable(parsed.config.host.toString()), unsigned(service.port()));
    std::fflush(stderr);

    QObject::connect(&signals, &flotilla::UnixSignals::terminateRequested, &app, [&service](int) {
        service.shutdown();
        // A moment for close frames and final responses to leave, then exit 0.
        QTimer::singleShot(100, QCoreApplication::instance(), &QCoreApplication::quit);
    });
    return QCoreApplication::exec();
}
