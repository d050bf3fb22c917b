#include "worktrees/MergeTask.h"

#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "worktrees/Git.h"
#include "worktrees/WorktreeLogging.h"

#include <QFile>

namespace flotilla {

namespace wc = wire::worktree::code;
namespace ws = wire::worktree::strategy;

namespace {

QString s(const char *text) {
    return QString::fromLatin1(text);
}

QStringList nulList(const QByteArray &out) {
    QStringList list;
    for (const QByteArray &field : out.split('\0')) {
        const QString path = QString::fromUtf8(field);
        if (!path.isEmpty() && !list.contains(path))
            list.append(path);
    }
    return list;
}

Error conflictError(const QString &target, const QStringList &paths) {
    return Error::conflict(wc::MergeConflict,
                           QStringLiteral("merging into %1 conflicts in %2 file(s): %3; nothing "
                                          "was changed")
                               .arg(target)
                               .arg(paths.size())
                               .arg(paths.mid(0, 20).join(QStringLiteral(", "))));
}

Error refusedBy(const GitResult &r, const QString &verb) {
    if (r.failedToStart || r.timedOut)
        return gitError(r, verb);
    QString why = QString::fromUtf8(r.err).trimmed();
    if (why.isEmpty()) // git merge says some of its refusals on stdout
        why = QString::fromUtf8(r.out).trimmed();
    return Error::conflict(wc::MergeRefused, QStringLiteral("git %1 refused: %2; nothing was "
                                                            "changed")
                                                 .arg(verb, why.left(1000)));
}

} // namespace

void MergeTask::start(const Git &git, const QProcessEnvironment &environment, MergeRequest request,
                      QObject *context, Done done) {
    auto *task = new MergeTask(git, environment, std::move(request), std::move(done), context);
    task->checkTarget();
}

MergeTask::MergeTask(const Git &git, const QProcessEnvironment &environment, MergeRequest request,
                     Done done, QObject *parent)
    : QObject(parent)
    , m_git(git)
    , m_env(environment)
    , m_request(std::move(request))
    , m_done(std::move(done)) {
    m_result.target = m_request.target;
}

void MergeTask::run(const QString &dir, const QStringList &args, Next next, bool slow,
                    const SandboxSpec &sandbox) {
    GitCommand c;
    c.dir = dir;
    c.args = args;
    c.sandbox = sandbox;
    c.timeoutMs = slow ? Git::kSlowMs : Git::kQuickMs;
    m_git.run(c, this, std::move(next));
}

void MergeTask::finish() {
    m_done(m_result);
    deleteLater();
}

void MergeTask::fail(const Error &error, const QStringList &conflicts) {
    qCInfo(lcWorktrees).noquote() << "merge of" << m_request.worktree.branch << "into"
                                  << m_request.target << "not done:" << error.message;
    m_result.error = error;
    m_result.conflicts = conflicts;
    finish();
}

// --- Where to merge, and whether it can be done ------------------------------------------------

void MergeTask::checkTarget() {
    inAgent({s("rev-parse"), s("--verify"), s("-q"), targetRef()}, [this](const GitResult &r) {
        if (!r.ok())
            return fail(Error::invalid(wc::UnknownRef,
                                       QStringLiteral("target '%1' is not a branch of %2; name "
                                                      "one with 'target'")
                                           .arg(m_request.target, m_request.worktree.repo)));
        inAgent({s("worktree"), s("list"), s("--porcelain")}, [this](const GitResult &list) {
            if (!list.ok())
                return fail(gitError(list, s("worktree list")));
            QString path;
            for (const QString &line : QString::fromUtf8(list.out).split(QLatin1Char('\n'))) {
                if (line.startsWith(QLatin1String("worktree ")))
                    path = line.mid(9);
                else if (line == QLatin1String("branch ") + targetRef())
                    m_result.targetPath = path;
            }
            if (m_result.targetPath.isEmpty())
                return fail(Error::conflict(
                    wc::MergeRefused, QStringLiteral("branch %1 is not checked out in any "
                                                     "worktree of %2; check it out there first")
                                          .arg(m_request.target, m_request.worktree.repo)));
            // A squash or merge commit would take what is staged there along.
            inTarget({s("diff"), s("--cached"), s("--quiet")}, [this](const GitResult &staged) {
                if (staged.exitCode == 1)
                    return fail(Error::conflict(
                        wc::MergeRefused, QStringLiteral("the checkout of %1 at %2 has staged "
                                                         "changes; commit or unstage them first")
                                              .arg(m_request.target, m_result.targetPath)));
                if (!staged.ok())
                    return fail(gitError(staged, s("diff --cached")));
                readIdentity();
            });
        });
    });
}

void MergeTask::readIdentity() {
    // Commits need a name and an e-mail; where git knows none (no user.name/user.email in any
    // config, no GIT_AUTHOR_*/GIT_COMMITTER_* or EMAIL), Flotilla's own are passed with -c.
    inAgent(
        {s("config"), s("--get-regexp"), s("^user\\.(name|email)$")}, [this](const GitResult &r) {
            const QString config = QString::fromUtf8(r.out);
            const bool name =
                config.contains(QLatin1String("user.name ")) ||
                (m_env.contains(s("GIT_AUTHOR_NAME")) && m_env.contains(s("GIT_COMMITTER_NAME")));
            const bool email =
                config.contains(QLatin1String("user.email ")) || m_env.contains(s("EMAIL")) ||
                (m_env.contains(s("GIT_AUTHOR_EMAIL")) && m_env.contains(s("GIT_COMMITTER_EMAIL")));
            if (!name)
                m_identity << s("-c") << s("user.name=Flotilla");
            if (!email)
                m_identity << s("-c") << s("user.email=flotilla@localhost");
            readState();
        });
}

void MergeTask::readState() {
    DiffRequest d;
    d.worktree = m_request.worktree.path;
    d.baseRef = targetRef();
    d.fallbackBase = m_request.worktree.baseCommit;
    d.withFiles = false;
    d.withPatch = false;
    DiffTask::start(m_git, d, this, [this](const Result<DiffState> &state) {
        if (!state)
            return fail(state.error());
        m_state = *state;
        m_result.branch = m_state.branch;
        if (m_state.branch == QLatin1String("HEAD"))
            return fail(Error::conflict(wc::MergeRefused,
                                        QStringLiteral("the agent's worktree %1 is not on a branch")
                                            .arg(m_request.worktree.path)));
        if (m_state.branch == m_request.target)
            return fail(Error::invalid(
                wire::code::InvalidValue,
                QStringLiteral("target '%1' is the agent's own branch").arg(m_request.target)));
        inAgent({s("rev-parse"), s("HEAD^{tree}")}, [this](const GitResult &tree) {
            if (!tree.ok())
                return fail(gitError(tree, s("rev-parse")));
            m_dirty = tree.firstLine() != m_state.tree;
            if (!m_dirty) {
                m_candidate = m_state.head;
                return checkMerge();
            }
            // The work as it would be committed, as an object no branch points at (yet).
            inAgent(m_identity + QStringList{s("commit-tree"), m_state.tree, s("-p"), s("HEAD"),
                                             s("-m"), s("(flotilla merge check)")},
                    [this](const GitResult &c) {
                        if (!c.ok())
                            return fail(gitError(c, s("commit-tree")));
                        m_candidate = c.firstLine();
                        checkMerge();
                    });
        });
    });
}

void MergeTask::checkMerge() {
    inAgent({s("merge-base"), s("--is-ancestor"), m_candidate, targetRef()},
            [this](const GitResult &r) {
                if (r.ok()) { // the target has all of it: nothing to do, nothing done
                    m_result.alreadyUpToDate = true;
                    return conclude();
                }
                inAgent(
                    {s("merge-tree"), s("--write-tree"), s("--name-only"), s("-z"),
                     s("--no-messages"), targetRef(), m_candidate},
                    [this](const GitResult &m) {
                        if (m.exitCode == 1) {
                            // The first field is the merged tree, the rest conflicted paths.
                            QStringList paths = nulList(m.out);
                            paths.removeFirst();
                            return fail(conflictError(m_request.target, paths), paths);
                        }
                        // 129: a git before 2.38 without merge-tree --write-tree: the merge
                        // itself finds conflicts, and is undone (recover()).
                        if (!m.ok() && m.exitCode != 129)
                            return fail(gitError(m, s("merge-tree")));
                        commitWork();
                    },
                    true);
            });
}

// --- From here on things change; each failure undoes what was done ----------------------------

void MergeTask::commitWork() {
    if (!m_scratch.isValid() ||
        !QFile::copy(m_state.indexPath, m_scratch.filePath(s("saved-index"))))
        return fail(Error::internal(wire::code::Internal,
                                    QStringLiteral("cannot keep a copy of the agent's index")));
    if (!m_dirty)
        return runStrategy();
    inAgent(
        {s("add"), s("-A")},
        [this](const GitResult &added) {
            if (!added.ok())
                return undoThenFail(refusedBy(added, s("add")));
            const QString message = QStringLiteral("Flotilla: uncommitted work of agent %1, "
                                                   "committed before merging into %2")
                                        .arg(m_request.agentName, m_request.target);
            inAgent(
                m_identity + QStringList{s("commit"), s("-q"), s("-m"), message},
                [this](const GitResult &committed) {
                    if (!committed.ok())
                        return undoThenFail(refusedBy(committed, s("commit")));
                    m_committed = true;
                    inAgent({s("rev-parse"), s("HEAD")}, [this](const GitResult &head) {
                        m_result.autoCommit = head.firstLine();
                        runStrategy();
                    });
                },
                true);
        },
        true);
}

void MergeTask::runStrategy() {
    const QString who = QStringLiteral("(Flotilla agent %1)").arg(m_request.agentName);
    if (m_request.strategy == ws::Rebase) {
        inAgent(
            m_identity + QStringList{s("rebase"), s("--no-autosquash"), targetRef()},
            [this](const GitResult &r) {
                if (!r.ok())
                    return recover(r, s("rebase"), m_request.worktree.path,
                                   {s("rebase"), s("--abort")});
                inTarget({s("merge"), s("--ff-only"), branchRef()}, [this](const GitResult &f) {
                    if (f.ok())
                        return conclude();
                    // The rebased branch goes back to where it was; then the usual undo.
                    const Error e = refusedBy(f, s("merge --ff-only"));
                    const QString before = m_committed ? m_result.autoCommit : m_state.head;
                    inAgent({s("reset"), s("-q"), s("--keep"), before},
                            [this, e](const GitResult &) { undoThenFail(e); });
                });
            },
            true);
        return;
    }
    if (m_request.strategy == ws::Squash) {
        inTarget(
            {s("merge"), s("--squash"), branchRef()},
            [this, who](const GitResult &r) {
                if (!r.ok())
                    return recover(r, s("merge --squash"), m_result.targetPath,
                                   {s("reset"), s("-q"), s("--merge")});
                const QString message = m_request.message.isEmpty()
                                            ? QStringLiteral("Squash %1 into %2 %3")
                                                  .arg(m_result.branch, m_request.target, who)
                                            : m_request.message;
                inTarget(
                    m_identity + QStringList{s("commit"), s("-q"), s("-m"), message},
                    [this](const GitResult &c) {
                        if (!c.ok())
                            return recover(c, s("commit"), m_result.targetPath,
                                           {s("reset"), s("-q"), s("--merge")});
                        // Its work is in the squash: the branch goes on from there.
                        inAgent({s("reset"), s("-q"), s("--keep"), targetRef()},
                                [this](const GitResult &k) {
                                    if (!k.ok())
                                        qCWarning(lcWorktrees).noquote()
                                            << k.describe(s("reset --keep"));
                                    conclude();
                                });
                    },
                    true);
            },
            true);
        return;
    }
    const QString message =
        m_request.message.isEmpty()
            ? QStringLiteral("Merge %1 into %2 %3").arg(m_result.branch, m_request.target, who)
            : m_request.message;
    inTarget(
        m_identity +
            QStringList{s("merge"), s("--no-ff"), s("--no-edit"), s("-m"), message, branchRef()},
        [this](const GitResult &r) {
            if (!r.ok())
                return recover(r, s("merge"), m_result.targetPath, {s("merge"), s("--abort")});
            conclude();
        },
        true);
}

void MergeTask::recover(const GitResult &failed, const QString &verb, const QString &dir,
                        const QStringList &abort) {
    const Error refusal = refusedBy(failed, verb);
    run(dir, {s("diff"), s("--name-only"), s("--diff-filter=U"), s("-z")},
        [this, refusal, dir, abort](const GitResult &u) {
            const QStringList paths = nulList(u.out);
            run(
                dir, abort,
                [this, refusal, paths](const GitResult &a) {
                    if (!a.ok())
                        qCDebug(lcWorktrees).noquote() << a.describe(s("abort"));
                    undoThenFail(paths.isEmpty() ? refusal : conflictError(m_request.target, paths),
                                 paths);
                },
                true);
        });
}

void MergeTask::undoThenFail(const Error &error, const QStringList &conflicts) {
    // The index file as it was (staged and unstaged as the agent left them); the working tree
    // itself was never touched.
    auto restoreIndex = [this, error, conflicts] {
        const QString saved = m_scratch.filePath(s("saved-index"));
        if (QFile::exists(saved)) {
            QFile::remove(m_state.indexPath);
            if (!QFile::copy(saved, m_state.indexPath))
                qCWarning(lcWorktrees).noquote()
                    << "could not restore the index of" << m_request.worktree.path;
        }
        fail(error, conflicts);
    };
    if (!m_committed)
        return restoreIndex();
    inAgent({s("reset"), s("-q"), s("--soft"), m_state.head},
            [restoreIndex](const GitResult &) { restoreIndex(); });
}

void MergeTask::conclude() {
    inAgent({s("merge-base"), targetRef(), s("HEAD")}, [this](const GitResult &base) {
        m_result.newBase = base.ok() ? base.firstLine() : m_request.worktree.baseCommit;
        inAgent({s("rev-parse"), targetRef()}, [this](const GitResult &tip) {
            m_result.commit = tip.firstLine();
            if (!m_result.alreadyUpToDate)
                qCInfo(lcWorktrees).noquote()
                    << m_request.strategy << m_result.branch << "into" << m_request.target << "at"
                    << m_result.targetPath << "->" << m_result.commit;
            finish();
        });
    });
}

} // namespace flotilla
