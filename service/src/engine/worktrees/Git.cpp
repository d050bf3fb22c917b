#include "worktrees/Git.h"

#include "base/ChildProcess.h"
#include "protocol/WorktreeNames.h"
#include "worktrees/WorktreeLogging.h"

#include <QFileInfo>
#include <QProcess>
#include <QTimer>

#include <csignal>

namespace flotilla {

namespace {

constexpr qsizetype kErrTail = 8 * 1024;

// Variables that would make git work on another repository, index or object store than the
// directory we run it in (set when flotillad itself was started from a git hook, for one).
const char *const kForeignGitVariables[] = {
    "GIT_DIR",        "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX",     "GIT_ALTERNATE_OBJECT_DIRECTORIES",
};

void keepTail(QByteArray &into, const QByteArray &more) {
    into += more;
    if (into.size() > kErrTail)
        into = into.right(kErrTail);
}

// Where git runs (as is, or in the command's sandbox, with a scratch index's directory writable
// there); nullopt and `why` when the launcher refuses.
std::optional<LaunchPlan> configure(QProcess &p, const QString &program, QProcessEnvironment env,
                                    const GitCommand &command, const ProcessLauncher &launcher,
                                    QString *why) {
    SandboxSpec sandbox = command.sandbox;
    if (!command.indexFile.isEmpty()) {
        env.insert(QStringLiteral("GIT_INDEX_FILE"), command.indexFile);
        if (sandbox.enabled)
            sandbox.writable << QFileInfo(command.indexFile).absolutePath();
    }
    auto plan = launcher.plan(ProcessSpec{program, command.args, command.dir, env, sandbox, {}});
    if (!plan) {
        *why = plan.error().message;
        return std::nullopt;
    }
    // Own group (a timeout reaches hooks and helpers), no orphan if flotillad dies, and the
    // user's umask for the files git writes in worktrees.
    applyLaunchPlan(p, *plan);
    p.setStandardInputFile(QProcess::nullDevice());
    qCDebug(lcWorktrees).noquote() << "git" << command.args.join(QLatin1Char(' ')) << "in"
                                   << command.dir << (plan->sandboxed ? "(sandboxed)" : "");
    return std::move(plan).value();
}

} // namespace

QString GitResult::firstLine() const {
    const qsizetype end = out.indexOf('\n');
    return QString::fromUtf8(end < 0 ? out : out.left(end)).trimmed();
}

QString GitResult::describe(const QString &verb) const {
    if (failedToStart)
        return QStringLiteral("git %1 could not be started: %2").arg(verb, startError);
    if (timedOut)
        return QStringLiteral("git %1 did not finish in time and was ended").arg(verb);
    const QString why = QString::fromUtf8(err).trimmed().left(1000);
    return QStringLiteral("git %1 failed (exit %2)%3")
        .arg(verb)
        .arg(exitCode)
        .arg(why.isEmpty() ? QString() : QStringLiteral(": ") + why);
}

Error gitError(const GitResult &result, const QString &verb) {
    const QString why = result.describe(verb);
    if (result.failedToStart)
        return Error{ErrorKind::Unavailable, wire::worktree::code::GitUnavailable, why};
    return Error::internal(wire::worktree::code::GitFailed, why);
}

Git::Git(const QProcessEnvironment &environment, const ProcessLauncher &launcher, QString program)
    : m_env(environment)
    , m_launcher(launcher)
    , m_program(std::move(program)) {
    for (const char *name : kForeignGitVariables)
        m_env.remove(QString::fromLatin1(name));
    // Never wait for a person: no credential prompt, no editor (every message is given), no
    // automatic merge-message edit.
    m_env.insert(QStringLiteral("GIT_TERMINAL_PROMPT"), QStringLiteral("0"));
    m_env.insert(QStringLiteral("GIT_EDITOR"), QStringLiteral("true"));
    m_env.insert(QStringLiteral("GIT_SEQUENCE_EDITOR"), QStringLiteral("true"));
    m_env.insert(QStringLiteral("GIT_MERGE_AUTOEDIT"), QStringLiteral("no"));
    m_env.insert(QStringLiteral("GIT_OPTIONAL_LOCKS"), QStringLiteral("0"));
}

GitResult Git::runSync(const GitCommand &command) const {
    GitResult r;
    QProcess p;
    QString why;
    const auto plan = configure(p, m_program, m_env, command, m_launcher, &why);
    if (!plan) {
        r.failedToStart = true;
        r.startError = why;
        return r;
    }
    p.start();
    if (!p.waitForStarted(command.timeoutMs)) {
        r.failedToStart = true;
        r.startError = p.errorString();
        return r;
    }
    const qint64 pid = p.processId();
    if (!p.waitForFinished(command.timeoutMs)) {
        signalLaunched(pid, plan->sandboxed, SIGKILL);
        p.waitForFinished(1000);
        r.timedOut = true;
        qCWarning(lcWorktrees).noquote()
            << "git" << command.args.value(0) << "timed out after" << command.timeoutMs << "ms";
        return r;
    }
    signalLaunched(pid, plan->sandboxed, SIGKILL); // whatever git left behind in its group
    r.out = p.readAllStandardOutput();
    if (r.out.size() > command.maxOutputBytes) {
        r.out.truncate(command.maxOutputBytes);
        r.outTruncated = true;
    }
    keepTail(r.err, p.readAllStandardError());
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return r;
}

void Git::run(const GitCommand &command, QObject *context,
              std::function<void(const GitResult &)> done) const {
    // A child of `context`: destroyed with it, which ends git and drops the callback.
    auto *job = new GitJob(m_program, m_env, command, m_launcher, context);
    QObject::connect(job, &GitJob::finished, context,
                     [job, done = std::move(done)](const GitResult &result) {
                         job->deleteLater(); // never inside its own signal
                         done(result);
                     });
    job->start();
}

GitJob::GitJob(QString program, const QProcessEnvironment &environment, GitCommand command,
               const ProcessLauncher &launcher, QObject *parent)
    : QObject(parent)
    , m_program(std::move(program))
    , m_env(environment)
    , m_command(std::move(command))
    , m_launcher(launcher) {
}

GitJob::~GitJob() {
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup();
        m_process->waitForFinished(1000);
    }
}

void GitJob::start() {
    m_process = new QProcess(this);
    m_timer = new QTimer(this);
    m_timer->setSingleShot(true);
    QString why;
    const auto plan = configure(*m_process, m_program, m_env, m_command, m_launcher, &why);
    if (!plan) {
        m_result.failedToStart = true;
        m_result.startError = why;
        // After the caller connected to finished(): never inside start().
        QTimer::singleShot(0, this, &GitJob::finish);
        return;
    }
    m_sandboxed = plan->sandboxed;
    connect(m_timer, &QTimer::timeout, this, [this] {
        qCWarning(lcWorktrees).noquote()
            << "git" << m_command.args.value(0) << "timed out after" << m_command.timeoutMs << "ms";
        m_result.timedOut = true;
        killGroup();
    });
    connect(m_process, &QProcess::started, this, [this] { m_pid = m_process->processId(); });
    connect(m_process, &QProcess::readyReadStandardOutput, this, &GitJob::readOut);
    connect(m_process, &QProcess::readyReadStandardError, this, &GitJob::readErr);
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        m_result.failedToStart = true;
        m_result.startError = m_process->errorString();
        finish();
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        readOut();
        readErr();
        killGroup(); // whatever git left behind in its group
        if (status == QProcess::NormalExit && !m_result.timedOut && !m_result.outTruncated)
            m_result.exitCode = code;
        finish();
    });
    m_timer->start(m_command.timeoutMs);
    m_process->start();
}

void GitJob::readOut() {
    const QByteArray chunk = m_process->readAllStandardOutput();
    if (m_result.outTruncated)
        return;
    const qint64 room = m_command.maxOutputBytes - m_result.out.size();
    if (chunk.size() <= room) {
        m_result.out += chunk;
        return;
    }
    // Enough for the caller (a capped patch): the rest is not worth waiting for.
    m_result.out += chunk.left(room);
    m_result.outTruncated = true;
    killGroup();
}

void GitJob::readErr() {
    keepTail(m_result.err, m_process->readAllStandardError());
}

void GitJob::finish() {
    if (m_done)
        return;
    m_done = true;
    m_timer->stop();
    Q_EMIT finished(m_result);
}

void GitJob::killGroup() {
    if (m_pid > 0)
        signalLaunched(m_pid, m_sandboxed, SIGKILL);
}

} // namespace flotilla
