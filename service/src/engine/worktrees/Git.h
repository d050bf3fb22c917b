#pragma once
// Runs the real `git` (the engine; nothing of git is reimplemented here): an argument list, never
// a shell; stdin from /dev/null; its own process group, so a timeout also ends the hooks and
// helpers git started; the user's umask for what it writes in worktrees (base/ChildProcess.h).
//
// Two ways to run it, both bounded by the command's timeout:
//  - Git::run (a GitJob): asynchronous, the event loop goes on while git works. Diff, merge and
//    the check after every turn use it: they grow with the size of the changes and run often.
//  - Git::runSync: blocks the event loop, for at most the timeout. Only creating and removing an
//    agent's worktree use it, because every caller (REST, the boss's spawn blocks, config import
//    and its undo, bulk delete) needs the answer before it can go on (docs/api.md, Worktrees).

#include "base/Error.h"
#include "base/Sandbox.h"

#include <QByteArray>
#include <QObject>
#include <QProcessEnvironment>
#include <QStringList>

#include <functional>

class QProcess;
class QTimer;

namespace flotilla {

struct GitResult {
    int exitCode = -1;         // -1: git did not end by itself (not started, timed out, cut)
    QByteArray out;            // stdout, at most GitCommand::maxOutputBytes
    QByteArray err;            // the end of stderr (at most 8 KiB)
    bool outTruncated = false; // stdout went past maxOutputBytes: git was ended there
    bool timedOut = false;
    bool failedToStart = false;
    QString startError; // why it did not start (no git binary, working directory gone)

    bool ok() const { return exitCode == 0; }
    // A step skipped as if git had run and succeeded.
    static GitResult success() {
        GitResult r;
        r.exitCode = 0;
        return r;
    }
    // The first line of stdout, without its line end.
    QString firstLine() const;
    // For messages and logs: "git merge failed (exit 1): <stderr's first lines>".
    QString describe(const QString &verb) const;
};

// A git run that failed, as the client sees it: 503 git_unavailable when git could not be started
// at all (no binary), 500 git_failed otherwise (git's own message, or the timeout).
Error gitError(const GitResult &result, const QString &verb);

struct GitCommand {
    QString dir;      // the working directory: a worktree or the repository
    QStringList args; // what follows `git`
    int timeoutMs = 10'000;
    qint64 maxOutputBytes = 16 * 1024 * 1024;
    QString indexFile; // GIT_INDEX_FILE (a scratch index) for this command, when not empty
    // A command in a sandboxed agent's worktree runs in its sandbox (sandbox/SandboxPolicy.h):
    // the worktree is the agent's to rewrite (its .git file, its admin directory), so git there
    // could be pointed at a configuration that runs a program (core.fsmonitor). Off: as is.
    SandboxSpec sandbox;
};

class Git final {
public:
    // Commands that read: quick, whatever the repository's size within reason.
    static constexpr int kQuickMs = 10'000;
    // Commands that write files (worktree add, merge, rebase, add -A): they may touch every file.
    static constexpr int kSlowMs = 60'000;

    // `environment`: the agents' environment (HOME, so the user's own git configuration), without
    // the variables that would point git at another repository or index, and with prompts,
    // editors and optional index locks off (GIT_OPTIONAL_LOCKS=0: a status of ours never holds
    // index.lock while the agent's own git wants it).
    // `launcher` places each command (base/Sandbox.h): as is, or in the command's sandbox.
    Git(const QProcessEnvironment &environment, const ProcessLauncher &launcher,
        QString program = QStringLiteral("git"));

    GitResult runSync(const GitCommand &command) const;
    // `done` runs from the event loop once git ended, unless `context` was destroyed first (then
    // git is ended).
    void run(const GitCommand &command, QObject *context,
             std::function<void(const GitResult &)> done) const;

private:
    QProcessEnvironment m_env;
    const ProcessLauncher &m_launcher;
    QString m_program;
};

// One git process, as a job object: QProcess stays private.
class GitJob final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(GitJob)
public:
    GitJob(QString program, const QProcessEnvironment &environment, GitCommand command,
           const ProcessLauncher &launcher, QObject *parent = nullptr);
    ~GitJob() override;
    void start();

Q_SIGNALS:
    void finished(const flotilla::GitResult &result);

private:
    void readOut();
    void readErr();
    void finish();
    void killGroup();

    QString m_program;
    QProcessEnvironment m_env;
    GitCommand m_command;
    const ProcessLauncher &m_launcher;
    bool m_sandboxed = false;
    QProcess *m_process = nullptr;
    QTimer *m_timer = nullptr;
    qint64 m_pid = 0;
    GitResult m_result;
    bool m_done = false;
};

} // namespace flotilla
