#pragma once
// What the worktree suites (tst_worktrees, tst_worktree_agents) share: an AgentRig whose cwd is a
// fresh git repository, and short REST helpers for agents with worktrees. Header-only and without
// Q_OBJECT, so it needs no entry in the support library.

#include "support/BossFixtures.h"
#include "support/GitRepo.h"

#include <memory>

namespace flotilla::test {

inline QJsonObject obj(const QJsonValue &v) {
    return v.toObject();
}

// The paths of a diff's `files`.
inline QStringList paths(const QJsonArray &files) {
    QStringList out;
    for (const QJsonValue &f : files)
        out << f.toObject().value(QStringLiteral("path")).toString();
    return out;
}

struct WorktreeFixture {
    AgentRig rig{[](ServerConfig &c) { GitRepo::hermetic(c); }};
    std::unique_ptr<GitRepo> repo;

    // The rig's cwd becomes a repository (branch main: shared.txt, src/main.c, one commit);
    // `identity`: user.name/user.email in its config.
    bool start(bool identity = true) {
        if (!rig.start())
            return false;
        rig.cwd = QDir(rig.cwd).canonicalPath(); // as git reports it
        repo = std::make_unique<GitRepo>(rig.cwd, rig.svc->config().agentEnvironment);
        return repo->init({{QStringLiteral("shared.txt"), "one\ntwo\nthree\n"},
                           {QStringLiteral("src/main.c"), "int main() { return 0; }\n"}},
                          identity);
    }
    HttpResponse create(const QString &name, const QJsonValue &worktree = true,
                        const QJsonObject &extra = {}) {
        QJsonObject fields = extra;
        fields.insert(QStringLiteral("worktree"), worktree);
        return rig.createAgent(name, fields);
    }
    // The agent's worktree object, once created (empty on failure).
    static QJsonObject worktreeOf(const HttpResponse &created) {
        return obj(created.object().value(QStringLiteral("worktree")));
    }
    QString worktreePath(const QString &id) {
        return str(obj(rig.agent(id).value(QStringLiteral("worktree"))), "path");
    }
    HttpResponse diff(const QString &id, const QString &query = {}) {
        return rig.http.get(rig.svc->url(QStringLiteral("/api/agents/%1/diff%2").arg(id, query)));
    }
    HttpResponse merge(const QString &id, const QJsonObject &body) {
        return rig.post(QStringLiteral("/api/agents/%1/merge").arg(id), body);
    }
    HttpResponse remove(const QString &id, const QString &query = {}) {
        return rig.http.del(rig.svc->url(QStringLiteral("/api/agents/%1%2").arg(id, query)));
    }
    QList<QJsonObject> diffEvents(const QString &id) const {
        return payloads(*rig.ws, "worktree_diff_changed", field("agentId", id));
    }
};

} // namespace flotilla::test
