#pragma once
// The real flotillad binary as a child process: for restart, crash and command-line tests.

#include <QProcess>
#include <QStringList>
#include <QUrl>

namespace flotilla::test {

// A clean environment for one flotillad child: HOME (and XDG data) under `home`, no token, no
// port from the environment, and no informational logging, so what reaches stderr is meant for
// the user.
QProcessEnvironment hermeticEnv(const QString &home);
// http://127.0.0.1:<port><path>
QUrl localUrl(quint16 port, const QString &path);

class ServiceProcess final {
public:
    ServiceProcess() = default;
    ~ServiceProcess();

    // Starts flotillad with `args` (plus --port 0 unless a port is given) and waits until it
    // prints its "listening on" line. Returns false if it exited or timed out.
    bool start(const QStringList &args,
               const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
               int timeoutMs = 10000);
    // Runs to completion (for options that exit at once); returns the exit code, -1 on timeout.
    int runToExit(const QStringList &args,
                  const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
                  int timeoutMs = 10000);

    // Runs flotillad as `user` through `runuser` (needs root), environment preserved. pid() is
    // then runuser's; servicePid() is flotillad's own.
    void setRunAs(const QString &user) { m_runAs = user; }
    // Start flotillad through this command (its arguments, then flotillad's path and arguments):
    // e.g. `unshare --user ...` for a machine where user namespaces are refused.
    void setWrapper(const QStringList &wrapper) { m_wrapper = wrapper; }

    quint16 port() const { return m_port; }
    qint64 pid() const { return m_process.processId(); }
    qint64 servicePid() const;
    bool terminate(int timeoutMs = 10000); // SIGTERM and wait
    void kill();                           // SIGKILL and wait
    int exitCode() const { return m_process.exitCode(); }
    QProcess::ExitStatus exitStatus() const { return m_process.exitStatus(); }
    QByteArray stdErr();
    QByteArray stdOut();

private:
    QProcess m_process;
    QByteArray m_err;
    QByteArray m_out;
    quint16 m_port = 0;
    QString m_runAs;
    QStringList m_wrapper;
};

} // namespace flotilla::test
