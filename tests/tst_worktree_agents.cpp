// Agents in worktrees doing real turns (the pinned Claude CLI against the scripted model): two
// agents edit the same file of one repository in parallel turns, each worktree keeps only its own
// change, the diffs are exact, worktree_diff_changed follows the turns that changed files (and
// only those), a review reaches the next model request, merging one then the other reports the
// conflict with both checkouts left as they were, a merge while the agent works is refused, and a
// restart keeps a worktree agent working where it was; config export/import and a boss's spawn
// block (a boss turn) make worktrees too. Refusals, diffs of every kind, squash, rebase and
// delete, without turns, are in tst_worktrees.

#include "support/WorktreeFixture.h"

#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

namespace {

// Each command writes what only its own agent would: the worktree directory is named after it.
const QString kEditShared =
    QStringLiteral("printf 'one\\n%s\\nthree\\n' \"$(basename \"$(pwd -P)\")\" > shared.txt");
const QString kWriteFirst = QStringLiteral("printf 'first\\n' > first.txt");
const QString kWriteSecond = QStringLiteral("printf 'second\\n' > second.txt");

// Requests of parallel agents come in any order: each is answered by what it is (a tool result:
// done; else the command its message asks for), not by queue position.
struct Fixture : WorktreeFixture {
    bool hang = false; // the next turn's model request never gets an answer

    bool start() {
        if (!WorktreeFixture::start())
            return false;
        QObject::connect(&rig.mock, &MockAnthropic::requestReceived, &rig.mock, [this](int i) {
            if (rig.mock.hasToolResult(i))
                return rig.mock.queueText(QStringLiteral("Done."));
            if (hang)
                return rig.mock.queueHang();
            const QString text = rig.mock.lastUserTextOf(i);
            for (const auto &[key, command] :
                 {std::pair{QStringLiteral("edit shared.txt"), kEditShared},
                  std::pair{QStringLiteral("write first"), kWriteFirst},
                  std::pair{QStringLiteral("write second"), kWriteSecond}}) {
                if (text.endsWith(key)) {
                    rig.model().queueCommand(command);
                    return;
                }
            }
            rig.mock.queueText(QStringLiteral("Noted."));
        });
        return true;
    }
    // An agent with a worktree that may run commands unasked.
    QString createAuto(const QString &name) {
        const HttpResponse r =
            create(name, true, {{QStringLiteral("permissionMode"), QStringLiteral("auto")}});
        return r.status == 201 ? str(r.object(), "id") : QString();
    }
    HttpResponse merge(const QString &id, const QString &strategy) {
        return WorktreeFixture::merge(id, {{QStringLiteral("strategy"), strategy}});
    }
};

QJsonArray sharedModified() {
    return QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("shared.txt")},
                                  {QStringLiteral("status"), QStringLiteral("modified")},
                                  {QStringLiteral("additions"), 1},
                                  {QStringLiteral("deletions"), 1},
                                  {QStringLiteral("binary"), false}}};
}

} // namespace

class TestWorktreeAgents final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void parallelAgentsReviewAndConflict() {
        Fixture f;
        QVERIFY(f.start());
        const QString alpha = f.createAuto(QStringLiteral("alpha"));
        const QString beta = f.createAuto(QStringLiteral("beta"));
        QVERIFY(!alpha.isEmpty() && !beta.isEmpty());
        const QString alphaWt = f.worktreePath(alpha);
        const QString betaWt = f.worktreePath(beta);

        // Both at once: two turns in flight on one repository.
        QCOMPARE(f.rig.send(QStringLiteral("Please edit shared.txt"), alpha).status, 200);
        QCOMPARE(f.rig.send(QStringLiteral("Please edit shared.txt"), beta).status, 200);
        QVERIFY(f.rig.waitTurns(1, 60000, alpha));
        QVERIFY(f.rig.waitTurns(1, 60000, beta));
        QCOMPARE(GitRepo::read(alphaWt + QStringLiteral("/shared.txt")),
                 QByteArray("one\nalpha\nthree\n"));
        QCOMPARE(GitRepo::read(betaWt + QStringLiteral("/shared.txt")),
                 QByteArray("one\nbeta\nthree\n"));
        QCOMPARE(GitRepo::read(f.rig.cwd + QStringLiteral("/shared.txt")),
                 QByteArray("one\ntwo\nthree\n"));
        QCOMPARE(f.repo->status(), QString());

        // Each turn changed the agent's diff: one event each, with its files.
        QVERIFY(QTest::qWaitFor([&] { return !f.diffEvents(alpha).isEmpty(); }, 10000));
        QVERIFY(QTest::qWaitFor([&] { return !f.diffEvents(beta).isEmpty(); }, 10000));
        QCOMPARE(f.diffEvents(alpha).constFirst().value(QStringLiteral("files")),
                 QJsonValue(sharedModified()));
        QCOMPARE(f.diffEvents(beta).constFirst().value(QStringLiteral("files")),
                 QJsonValue(sharedModified()));
        const QJsonObject diff =
            f.rig.http.get(f.rig.svc->url(QStringLiteral("/api/agents/%1/diff").arg(beta)))
                .object();
        QCOMPARE(diff.value(QStringLiteral("files")), QJsonValue(sharedModified()));
        QVERIFY2(str(diff, "patch")
                     .endsWith(QStringLiteral("@@ -1,3 +1,3 @@\n one\n-two\n+beta\n three\n")),
                 qPrintable(str(diff, "patch")));

        // The review is alpha's next message, with the file's lines around the comment.
        const HttpResponse review = f.rig.post(
            QStringLiteral("/api/agents/%1/review").arg(alpha),
            {{QStringLiteral("message"), QStringLiteral("Nice start.")},
             {QStringLiteral("comments"),
              QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("shared.txt")},
                                     {QStringLiteral("line"), 2},
                                     {QStringLiteral("body"), QStringLiteral("Greet instead")}}}}});
        QCOMPARE(review.status, 200);
        QCOMPARE(review.object().value(QStringLiteral("comments")).toInt(), 1);
        QVERIFY(f.rig.waitTurns(2, 60000, alpha));
        QString sent;
        for (int i = 0; i < f.rig.model().requestCount(); ++i) {
            if (f.rig.model().lastUserTextOf(i).contains(QStringLiteral("[Review]")))
                sent = f.rig.model().lastUserTextOf(i);
        }
        for (const QString &part :
             {QStringLiteral("on branch flotilla/alpha"), QStringLiteral("Nice start."),
              QStringLiteral("1. shared.txt, line 2:"), QStringLiteral("        1 | one"),
              QStringLiteral(">     2 | alpha"), QStringLiteral("        3 | three"),
              QStringLiteral("Comment: Greet instead")})
            QVERIFY2(sent.contains(part), qPrintable(part + QStringLiteral(" in: ") + sent));

        // Merge alpha: its uncommitted edit is committed first, then merged into main.
        const HttpResponse merged = f.merge(alpha, QStringLiteral("merge"));
        QCOMPARE(merged.status, 200);
        QVERIFY(!str(merged.object(), "autoCommit").isEmpty());
        QCOMPARE(GitRepo::read(f.rig.cwd + QStringLiteral("/shared.txt")),
                 QByteArray("one\nalpha\nthree\n"));
        QCOMPARE(f.repo->status(), QString());
        QCOMPARE(f.repo->status(alphaWt), QString());
        QCOMPARE(
            f.repo
                ->run({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%p")})
                .out.split(QLatin1Char(' '))
                .size(),
            2); // a merge commit
        // Clients learn the new base, and that the diff is empty now; the review's turn, which
        // changed nothing, sent no event of its own.
        QVERIFY(QTest::qWaitFor([&] { return f.diffEvents(alpha).size() >= 2; }, 10000));
        QCOMPARE(f.diffEvents(alpha).size(), 2);
        QCOMPARE(f.diffEvents(alpha).at(1).value(QStringLiteral("files")),
                 QJsonValue(QJsonArray()));
        bool baseAnnounced = false;
        for (const QJsonObject &u : f.rig.updates(alpha))
            baseAnnounced |= str(u.value(QStringLiteral("worktree")).toObject(), "baseCommit") ==
                             str(merged.object(), "autoCommit");
        QVERIFY(baseAnnounced);

        // Beta changed the same line: refused with the path, both checkouts as they were.
        const QString mainHead = f.repo->head();
        const QString betaHead = f.repo->head(betaWt);
        const QString betaStatus = f.repo->status(betaWt);
        QCOMPARE(betaStatus, QStringLiteral("M shared.txt"));
        const HttpResponse conflict = f.merge(beta, QStringLiteral("merge"));
        QCOMPARE(conflict.status, 409);
        QCOMPARE(str(conflict.object(), "code"), QStringLiteral("merge_conflict"));
        QCOMPARE(conflict.object().value(QStringLiteral("conflicts")),
                 QJsonValue(QJsonArray{QStringLiteral("shared.txt")}));
        QCOMPARE(f.repo->head(), mainHead);
        QCOMPARE(f.repo->status(), QString());
        QCOMPARE(f.repo->head(betaWt), betaHead);
        QCOMPARE(f.repo->status(betaWt), betaStatus);
        QCOMPARE(GitRepo::read(betaWt + QStringLiteral("/shared.txt")),
                 QByteArray("one\nbeta\nthree\n"));
        QCOMPARE(f.merge(beta, QStringLiteral("rebase")).status, 409);
        QCOMPARE(f.repo->head(betaWt), betaHead);
        QCOMPARE(f.repo->status(betaWt), betaStatus);

        // Never while the agent works.
        f.hang = true;
        QCOMPARE(f.rig.send(QStringLiteral("Think for a long time"), beta).status, 200);
        QVERIFY(f.rig.waitStatus(QStringLiteral("working"), 30000, beta));
        const HttpResponse busy = f.merge(beta, QStringLiteral("squash"));
        QCOMPARE(busy.status, 409);
        QCOMPARE(str(busy.object(), "code"), QStringLiteral("agent_working"));
        QCOMPARE(f.rig
                     .post(QStringLiteral("/api/agents/bulk/stop"),
                           {{QStringLiteral("agentIds"), QJsonArray{beta}}})
                     .status,
                 200);
    }

    void restartKeepsWorktreeAgentsWorking() {
        Fixture f;
        QVERIFY(f.start());
        const QString id = f.createAuto(QStringLiteral("keeper"));
        const QJsonObject before = f.rig.agent(id);
        const QString wt = f.worktreePath(id);
        QCOMPARE(f.rig.send(QStringLiteral("Please write first"), id).status, 200);
        QVERIFY(f.rig.waitTurns(1, 60000, id));
        QVERIFY(QTest::qWaitFor([&] { return !f.diffEvents(id).isEmpty(); }, 10000));

        QVERIFY(f.rig.restartService());
        const QJsonObject after = f.rig.agent(id);
        QCOMPARE(after.value(QStringLiteral("worktree")), before.value(QStringLiteral("worktree")));
        QCOMPARE(str(after, "cwd"), str(before, "cwd"));
        QCOMPARE(f.rig.send(QStringLiteral("Please write second"), id).status, 200);
        QVERIFY(f.rig.waitTurns(1, 60000, id));
        // It ran in its worktree (the earlier conversation resumed), not in the repository.
        QCOMPARE(GitRepo::read(wt + QStringLiteral("/second.txt")), QByteArray("second\n"));
        QVERIFY(!QFile::exists(f.rig.cwd + QStringLiteral("/second.txt")));
        const int last = f.rig.model().requestCount() - 1;
        QVERIFY(f.rig.model().conversationOf(last).contains(QStringLiteral("Please write first")));
        QVERIFY(QTest::qWaitFor([&] { return !f.diffEvents(id).isEmpty(); }, 10000));
        QStringList files;
        for (const QJsonValue &v :
             f.diffEvents(id).constLast().value(QStringLiteral("files")).toArray())
            files << str(v.toObject(), "path");
        QCOMPARE(files, QStringList({QStringLiteral("first.txt"), QStringLiteral("second.txt")}));
    }

    // Export names the repository and the worktree to make; import makes it (dry run checks it).
    void configTransferKeepsWorktrees() {
        Fixture f;
        QVERIFY(f.start());
        const HttpResponse created =
            f.create(QStringLiteral("porter"), true,
                     {{QStringLiteral("cwd"), QString(f.rig.cwd + QStringLiteral("/src"))}});
        const QString id = str(created.object(), "id");
        const QJsonObject doc =
            f.rig.http.get(f.rig.svc->url(QStringLiteral("/api/config/export?categories=agents")))
                .object();
        QJsonObject exported;
        for (const QJsonValue &a : doc.value(QStringLiteral("categories"))
                                       .toObject()
                                       .value(QStringLiteral("agents"))
                                       .toArray())
            if (str(a.toObject(), "name") == QLatin1String("porter"))
                exported = a.toObject();
        QCOMPARE(str(exported, "cwd"), f.rig.cwd + QStringLiteral("/src"));
        QCOMPARE(obj(exported.value(QStringLiteral("worktree"))),
                 (QJsonObject{{QStringLiteral("baseRef"), QStringLiteral("main")},
                              {QStringLiteral("branch"), QStringLiteral("flotilla/porter")}}));

        QCOMPARE(f.rig
                     .post(QStringLiteral("/api/agents/bulk/delete?discard=true&deleteBranch=true"),
                           {{QStringLiteral("agentIds"), QJsonArray{id, f.rig.agentId}}})
                     .status,
                 200);
        QJsonObject only = doc;
        QJsonObject categories{{QStringLiteral("agents"), QJsonArray{exported}}};
        only.insert(QStringLiteral("categories"), categories);
        // A base that does not resolve refuses the whole document, naming the agent.
        QJsonObject bad = exported;
        bad.insert(QStringLiteral("worktree"),
                   QJsonObject{{QStringLiteral("baseRef"), QStringLiteral("gone")}});
        QJsonObject badDoc = only;
        badDoc.insert(QStringLiteral("categories"),
                      QJsonObject{{QStringLiteral("agents"), QJsonArray{bad}}});
        const HttpResponse refused =
            f.rig.post(QStringLiteral("/api/config/import?dryRun=true"), badDoc);
        QCOMPARE(refused.status, 422);
        QCOMPARE(str(refused.object(), "code"), QStringLiteral("unknown_ref"));
        QVERIFY(str(refused.object(), "error").contains(QStringLiteral("categories.agents[0]")));

        const HttpResponse imported = f.rig.post(QStringLiteral("/api/config/import"), only);
        QCOMPARE(imported.status, 200);
        const QString newId =
            str(imported.object().value(QStringLiteral("agents")).toArray().at(0).toObject(), "id");
        const QJsonObject agent = f.rig.agent(newId);
        const QJsonObject w = obj(agent.value(QStringLiteral("worktree")));
        QCOMPARE(str(w, "branch"), QStringLiteral("flotilla/porter"));
        QCOMPARE(str(agent, "cwd"), str(w, "path") + QStringLiteral("/src"));
        QVERIFY(QFileInfo(str(w, "path")).isDir());
    }

    // spawn_boss_agent and a boss's spawn block take `worktree` like POST /api/agents.
    void bossSpawnsWorktreeMembers() {
        Fixture f;
        QVERIFY(f.start());
        sendWs(*f.rig.ws, "spawn_boss_agent",
               QJsonObject{{QStringLiteral("name"), QStringLiteral("lead")},
                           {QStringLiteral("cwd"), f.rig.cwd},
                           {QStringLiteral("worktree"), true}});
        const QJsonObject boss =
            waitPayload(*f.rig.ws, "agent_created", 1, field("name", QStringLiteral("lead")), 5000);
        QCOMPARE(str(obj(boss.value(QStringLiteral("worktree"))), "branch"),
                 QStringLiteral("flotilla/lead"));
        const QString bossId = str(boss, "id");
        f.rig.mock.queueText(
            fenced("spawn", json(QJsonObject{{QStringLiteral("name"), QStringLiteral("member")},
                                             {QStringLiteral("cwd"), f.rig.cwd},
                                             {QStringLiteral("worktree"), true}})));
        sendCommand(f.rig, bossId, QStringLiteral("Add a member"));
        const QJsonObject spawned = waitPayload(*f.rig.ws, "boss_spawned_agent", 1, {}, 60000);
        const QJsonObject member = obj(spawned.value(QStringLiteral("agent")));
        QCOMPARE(str(obj(member.value(QStringLiteral("worktree"))), "branch"),
                 QStringLiteral("flotilla/member"));
        QCOMPARE(str(member, "bossId"), bossId);
    }
};

QTEST_MAIN(TestWorktreeAgents)
#include "tst_worktree_agents.moc"
