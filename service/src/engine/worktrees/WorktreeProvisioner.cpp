#include "worktrees/WorktreeProvisioner.h"

#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"
#include "worktrees/WorktreeLogging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>

namespace flotilla {

namespace wk = wire::worktree::key;
namespace wc = wire::worktree::code;

WorktreeProvisioner::WorktreeProvisioner(const Git &git, QString root)
    : m_git(git)
    , m_root(std::move(root)) {
}

GitResult WorktreeProvisioner::git(const QString &dir, const QStringList &args,
                                   int timeoutMs) const {
    GitCommand c;
    c.dir = dir;
    c.args = args;
    c.timeoutMs = timeoutMs;
    return m_git.runSync(c);
}

QString WorktreeProvisioner::slug(const QString &name) {
    static const QRegularExpression outside(QStringLiteral("[^A-Za-z0-9._-]+"));
    static const QRegularExpression dashes(QStringLiteral("-{2,}"));
    static const QRegularExpression dots(QStringLiteral("\\.{2,}"));
    QString s = name;
    s.replace(outside, QStringLiteral("-"));
    s.replace(dashes, QStringLiteral("-"));
    s.replace(dots, QStringLiteral("."));
    s = s.left(60);
    // Neither a path nor a ref component may start with '.' or end with '.', '-' or ".lock".
    while (!s.isEmpty() && (s.startsWith(QLatin1Char('.')) || s.startsWith(QLatin1Char('-'))))
        s.remove(0, 1);
    while (!s.isEmpty() && (s.endsWith(QLatin1Char('.')) || s.endsWith(QLatin1Char('-'))))
        s.chop(1);
    if (s.endsWith(QLatin1String(".lock")))
        s.chop(5);
    return s.isEmpty() ? QStringLiteral("agent") : s;
}

Result<WorktreeProvisioner::Facts> WorktreeProvisioner::inspect(const AgentDraft &draft) const {
    Facts f;
    const GitResult top =
        git(draft.cwd, {QStringLiteral("rev-parse"), QStringLiteral("--path-format=absolute"),
                        QStringLiteral("--show-toplevel"), QStringLiteral("--git-common-dir")});
    if (top.failedToStart)
        return gitError(top, QStringLiteral("rev-parse"));
    if (!top.ok() || top.timedOut) {
        // Not a repository, a bare one (no work tree to branch from), or git cannot read it.
        const QString why = QString::fromUtf8(top.err).trimmed().left(300);
        return Error::invalid(
            wc::NotARepository,
            QStringLiteral("field 'worktree': cwd %1 is not inside a git "
                           "repository's working tree%2")
                .arg(draft.cwd, why.isEmpty() ? QString() : QStringLiteral(" (git: %1)").arg(why)));
    }
    const QStringList lines = QString::fromUtf8(top.out).split(QLatin1Char('\n'));
    f.toplevel = lines.value(0).trimmed();
    const QString common = QDir::cleanPath(lines.value(1).trimmed());
    f.repo = QFileInfo(common).fileName() == QLatin1String(".git")
                 ? QFileInfo(common).absolutePath()
                 : f.toplevel;
    const QString rel = QDir(f.toplevel).relativeFilePath(draft.cwd);
    f.prefix = rel == QLatin1String(".") || rel.startsWith(QLatin1String("..")) ? QString() : rel;

    f.baseRef = draft.worktree->baseRef;
    if (f.baseRef.isEmpty()) {
        // The branch checked out where the user pointed; a detached checkout: its commit.
        const GitResult head =
            git(f.toplevel, {QStringLiteral("symbolic-ref"), QStringLiteral("-q"),
                             QStringLiteral("--short"), QStringLiteral("HEAD")});
        f.baseRef = head.ok() ? head.firstLine() : QStringLiteral("HEAD");
    }
    const GitResult base = git(
        f.toplevel, {QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"),
                     QStringLiteral("--end-of-options"), f.baseRef + QStringLiteral("^{commit}")});
    if (!base.ok())
        return Error::invalid(wc::UnknownRef,
                              QStringLiteral("field 'worktree.baseRef': '%1' is not a commit of "
                                             "the repository %2")
                                  .arg(f.baseRef, f.repo));
    f.baseCommit = base.firstLine();
    if (f.baseRef == QLatin1String("HEAD"))
        f.baseRef = f.baseCommit; // "HEAD" would mean each checkout's own later on

    f.branch = draft.worktree->branch.isEmpty() ? QStringLiteral("flotilla/") + slug(draft.name)
                                                : draft.worktree->branch;
    const GitResult name =
        git(f.toplevel, {QStringLiteral("check-ref-format"), QStringLiteral("--branch"), f.branch});
    if (!name.ok() || name.firstLine() != f.branch)
        return Error::invalid(wire::code::InvalidValue,
                              QStringLiteral("field 'worktree.branch': '%1' is not a valid branch "
                                             "name")
                                  .arg(f.branch));
    return f;
}

Status WorktreeProvisioner::check(const AgentDraft &draft) {
    const auto facts = inspect(draft);
    return facts ? Status() : Status(facts.error());
}

Result<QString> WorktreeProvisioner::freeBranch(const Facts &facts) const {
    for (int n = 1; n <= kMaxSuffix; ++n) {
        const QString candidate =
            n == 1 ? facts.branch : facts.branch + QStringLiteral("-%1").arg(n);
        const GitResult exists =
            git(facts.toplevel, {QStringLiteral("rev-parse"), QStringLiteral("--verify"),
                                 QStringLiteral("-q"), QStringLiteral("refs/heads/") + candidate});
        if (exists.exitCode == 1)
            return candidate;
        if (!exists.ok())
            return gitError(exists, QStringLiteral("rev-parse"));
    }
    return Error::conflict(wire::code::Conflict,
                           QStringLiteral("branches %1 to %1-%2 all exist; name another with "
                                          "worktree.branch")
                               .arg(facts.branch)
                               .arg(kMaxSuffix));
}

QString WorktreeProvisioner::freeDirectory(const Facts &facts, const QString &agentName) const {
    const QByteArray hash =
        QCryptographicHash::hash(facts.repo.toUtf8(), QCryptographicHash::Sha1).toHex().left(8);
    const QString parent = m_root + QLatin1Char('/') + slug(QFileInfo(facts.repo).fileName()) +
                           QLatin1Char('-') + QString::fromLatin1(hash);
    const QString base = parent + QLatin1Char('/') + slug(agentName);
    for (int n = 1; n <= kMaxSuffix; ++n) {
        QString candidate = n == 1 ? base : base + QStringLiteral("-%1").arg(n);
        if (!QFileInfo::exists(candidate))
            return candidate;
    }
    return {};
}

Result<WorktreePlacement> WorktreeProvisioner::create(const AgentDraft &draft) {
    const auto facts = inspect(draft);
    if (!facts)
        return facts.error();
    const auto branch = freeBranch(*facts);
    if (!branch)
        return branch.error();
    const QString path = freeDirectory(*facts, draft.name);
    if (path.isEmpty() || !QDir().mkpath(QFileInfo(path).absolutePath()))
        return Error::internal(
            wire::code::Internal,
            QStringLiteral("cannot make a directory for the worktree under %1").arg(m_root));
    // -b never overwrites a branch (unlike -B): if one appeared meanwhile, git refuses.
    const GitResult add =
        git(facts->toplevel,
            {QStringLiteral("worktree"), QStringLiteral("add"), QStringLiteral("--quiet"),
             QStringLiteral("-b"), *branch, path, facts->baseCommit},
            Git::kSlowMs);
    if (!add.ok()) {
        qCWarning(lcWorktrees).noquote() << add.describe(QStringLiteral("worktree add"));
        return gitError(add, QStringLiteral("worktree add"));
    }
    WorktreePlacement placed;
    placed.worktree.repo = facts->repo;
    placed.worktree.path = QFileInfo(path).canonicalFilePath();
    placed.worktree.branch = *branch;
    placed.worktree.baseRef = facts->baseRef;
    placed.worktree.baseCommit = facts->baseCommit;
    // The same place in the new checkout as cwd was in the old one (made if the base lacks it).
    QString cwd = placed.worktree.path;
    if (!facts->prefix.isEmpty()) {
        cwd += QLatin1Char('/') + facts->prefix;
        QDir().mkpath(cwd);
    }
    placed.cwd = QFileInfo(cwd).canonicalFilePath();
    qCInfo(lcWorktrees).noquote() << "worktree" << placed.worktree.path << "on branch" << *branch
                                  << "from" << facts->baseRef << "for agent" << draft.name;
    return placed;
}

QJsonObject WorktreeProvisioner::release(const Agent &agent, const WorktreeRemoval &how) {
    const AgentWorktree &w = agent.worktree;
    QJsonObject report{{wk::Path, w.path},
                       {wk::Branch, w.branch},
                       {wk::Removed, false},
                       {wk::BranchDeleted, false},
                       {wk::UncommittedPaths, QJsonArray()},
                       {wire::key::Reason, QJsonValue()}};
    auto kept = [&](const QString &why) {
        report.insert(wire::key::Reason, why);
        qCInfo(lcWorktrees).noquote()
            << "kept worktree" << w.path << "of deleted agent" << agent.name << "-" << why;
        return report;
    };
    if (!QFileInfo(w.path).isDir()) {
        // Removed by hand: only git's record of it is left.
        git(w.repo, {QStringLiteral("worktree"), QStringLiteral("prune")});
        report.insert(wk::Removed, true);
    } else {
        const GitResult status =
            git(w.path, {QStringLiteral("status"), QStringLiteral("--porcelain=v1"),
                         QStringLiteral("-z"), QStringLiteral("--untracked-files=normal")});
        if (!status.ok() && !how.discard)
            return kept(status.describe(QStringLiteral("status")));
        // "XY path" entries; a rename or copy is followed by its old path, which is skipped.
        QJsonArray dirty;
        const QList<QByteArray> entries = status.out.split('\0');
        for (qsizetype i = 0; i < entries.size(); ++i) {
            const QByteArray &e = entries.at(i);
            if (e.size() <= 3)
                continue;
            if (dirty.size() < kMaxReportedPaths)
                dirty.append(QString::fromUtf8(e.mid(3)));
            if (e.at(0) == 'R' || e.at(0) == 'C')
                ++i;
        }
        if (!dirty.isEmpty() && !how.discard) {
            report.insert(wk::UncommittedPaths, dirty);
            return kept(QStringLiteral("the worktree has uncommitted changes; delete with "
                                       "discard=true to throw them away"));
        }
        QStringList args{QStringLiteral("worktree"), QStringLiteral("remove")};
        if (how.discard)
            args << QStringLiteral("--force") << QStringLiteral("--force"); // also if locked
        args << w.path;
        const GitResult removed = git(w.repo, args, Git::kSlowMs);
        if (!removed.ok())
            return kept(removed.describe(QStringLiteral("worktree remove")));
        report.insert(wk::Removed, true);
        qCInfo(lcWorktrees).noquote() << "removed worktree" << w.path << "of agent" << agent.name;
    }
    if (!how.deleteBranch)
        return report;
    // Only work that is in the base already goes without discard=true.
    const GitResult merged = git(w.repo, {QStringLiteral("merge-base"),
                                          QStringLiteral("--is-ancestor"), w.branch, w.baseRef});
    if (!merged.ok() && !how.discard)
        return kept(QStringLiteral("branch %1 has commits that are not in %2; kept (delete with "
                                   "discard=true to drop them)")
                        .arg(w.branch, w.baseRef));
    const GitResult deleted =
        git(w.repo, {QStringLiteral("branch"), QStringLiteral("-D"), w.branch});
    if (!deleted.ok())
        return kept(deleted.describe(QStringLiteral("branch -D")));
    report.insert(wk::BranchDeleted, true);
    return report;
}

} // namespace flotilla
