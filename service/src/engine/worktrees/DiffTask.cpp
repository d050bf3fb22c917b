#include "worktrees/DiffTask.h"

#include "protocol/WireNames.h"
#include "worktrees/Git.h"

#include <QFile>

namespace flotilla {

namespace {
// Flags every diff of ours carries: the service never runs the user's diff drivers or textconv
// filters, never colours, and finds renames whatever diff.renames says.
const QStringList kDiffFlags{QStringLiteral("--no-ext-diff"), QStringLiteral("--no-textconv"),
                             QStringLiteral("--no-color"), QStringLiteral("-M")};
} // namespace

void DiffTask::start(const Git &git, DiffRequest request, QObject *context, Done done) {
    auto *task = new DiffTask(git, std::move(request), std::move(done), context);
    task->run({QStringLiteral("rev-parse"), QStringLiteral("--path-format=absolute"),
               QStringLiteral("--git-path"), QStringLiteral("index"), QStringLiteral("HEAD"),
               QStringLiteral("--abbrev-ref"), QStringLiteral("HEAD")},
              &DiffTask::onHead);
}

DiffTask::DiffTask(const Git &git, DiffRequest request, Done done, QObject *parent)
    : QObject(parent)
    , m_git(git)
    , m_request(std::move(request))
    , m_done(std::move(done)) {
}

void DiffTask::run(const QStringList &args, void (DiffTask::*next)(const GitResult &),
                   bool scratchIndex, int timeoutMs, qint64 maxOutput) {
    GitCommand c;
    c.dir = m_request.worktree;
    c.args = args;
    c.sandbox = m_request.sandbox;
    if (timeoutMs > 0)
        c.timeoutMs = timeoutMs;
    if (maxOutput > 0)
        c.maxOutputBytes = maxOutput;
    if (scratchIndex)
        c.indexFile = m_scratch.filePath(QStringLiteral("index"));
    m_git.run(c, this, [this, next](const GitResult &r) { (this->*next)(r); });
}

void DiffTask::fail(const Error &error) {
    m_done(error);
    deleteLater();
}

QStringList DiffTask::pathspec() const {
    if (m_request.path.isEmpty())
        return {};
    // :(literal): a path with * or ? is that file, not a pattern.
    return {QStringLiteral("--"), QStringLiteral(":(literal)") + m_request.path};
}

void DiffTask::onHead(const GitResult &r) {
    if (!r.ok())
        return fail(gitError(r, QStringLiteral("rev-parse")));
    const QStringList lines = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
    m_state.indexPath = lines.value(0).trimmed();
    m_state.head = lines.value(1).trimmed();
    m_state.branch = lines.value(2).trimmed();
    run({QStringLiteral("merge-base"), m_request.baseRef, QStringLiteral("HEAD")},
        &DiffTask::onMergeBase);
}

void DiffTask::onMergeBase(const GitResult &r) {
    // A base branch deleted since, or histories that no longer meet: the commit we started from.
    m_state.base = r.ok() ? r.firstLine() : m_request.fallbackBase;
    if (!m_scratch.isValid())
        return fail(Error::internal(wire::code::Internal,
                                    QStringLiteral("cannot make a scratch directory for git: %1")
                                        .arg(m_scratch.errorString())));
    // A copy keeps the stat cache; without an index (never happens in a checkout) start from HEAD.
    if (QFile::copy(m_state.indexPath, m_scratch.filePath(QStringLiteral("index"))))
        return onScratchReady(GitResult::success());
    run({QStringLiteral("read-tree"), QStringLiteral("HEAD")}, &DiffTask::onScratchReady, true);
}

void DiffTask::onScratchReady(const GitResult &r) {
    if (!r.ok())
        return fail(gitError(r, QStringLiteral("read-tree")));
    run({QStringLiteral("add"), QStringLiteral("-A")}, &DiffTask::onAdded, true, Git::kSlowMs);
}

void DiffTask::onAdded(const GitResult &r) {
    if (!r.ok())
        return fail(gitError(r, QStringLiteral("add -A")));
    run({QStringLiteral("write-tree")}, &DiffTask::onTree, true);
}

void DiffTask::onTree(const GitResult &r) {
    if (!r.ok())
        return fail(gitError(r, QStringLiteral("write-tree")));
    m_state.tree = r.firstLine();
    if (!m_request.withFiles)
        return onFiles(GitResult::success());
    run(QStringList{QStringLiteral("diff"), QStringLiteral("--cached"), QStringLiteral("--raw"),
                    QStringLiteral("--numstat"), QStringLiteral("-z")} +
            kDiffFlags + QStringList{m_state.base} + pathspec(),
        &DiffTask::onFiles, true, Git::kSlowMs);
}

void DiffTask::onFiles(const GitResult &r) {
    if (!r.ok())
        return fail(gitError(r, QStringLiteral("diff")));
    if (m_request.withFiles)
        m_state.files = parseRawNumstat(r.out);
    if (!m_request.withPatch)
        return finish();
    // One byte over the cap is enough to know the patch is longer: git is ended there.
    run(QStringList{QStringLiteral("diff"), QStringLiteral("--cached")} + kDiffFlags +
            QStringList{m_state.base} + pathspec(),
        &DiffTask::onPatch, true, Git::kSlowMs, m_request.maxPatchBytes + 1);
}

void DiffTask::onPatch(const GitResult &r) {
    if (!r.ok() && !r.outTruncated)
        return fail(gitError(r, QStringLiteral("diff")));
    m_state.patch = capPatch(r.out, m_request.maxPatchBytes, r.outTruncated, &m_state.truncated);
    finish();
}

void DiffTask::finish() {
    m_done(m_state);
    deleteLater();
}

} // namespace flotilla
