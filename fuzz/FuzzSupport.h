#pragma once
// Shared by the libFuzzer targets: a Qt application object for the whole run, quiet logging, and
// FUZZ_CHECK, which aborts (libFuzzer then saves the input) when an invariant does not hold.

#include <QCoreApplication>
#include <QtGlobal>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace flotilla::fuzz {

// Creates the QCoreApplication once (argc/argv must outlive it) and silences Qt's and
// Flotilla's log output: a warning per rejected input would dominate the run time.
inline void initQt() {
    static int argc = 1;
    static char name[] = "flotilla-fuzz";
    static char *argv[] = {name, nullptr};
    if (QCoreApplication::instance())
        return;
    qputenv("QT_LOGGING_RULES", "*=false");
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &msg) {
        if (type == QtFatalMsg) {
            std::fprintf(stderr, "qFatal: %s\n", qUtf8Printable(msg));
            std::abort();
        }
    });
    new QCoreApplication(argc, argv); // lives as long as the process: libFuzzer never returns
}

} // namespace flotilla::fuzz

#define FUZZ_CHECK(cond, what)                                                                     \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "invariant failed: %s (%s:%d): %s\n", #cond, __FILE__, __LINE__,  \
                         what);                                                                    \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)
