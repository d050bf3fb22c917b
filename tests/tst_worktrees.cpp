// Agents' git worktrees through the REST API, with the real git on repositories the test makes:
// where worktrees and branches go, the refusals, the diff (untracked files, renames, binary files,
// the patch cap, ?path=), squash and rebase merges (also where git knows no identity), a refused
// merge undone, delete with clean and dirty worktrees and its flags, bulk delete. No CLI runs here:
// the test edits the worktrees itself (the agents' own turns are tst_worktree_agents').

#include "support/WorktreeFixture.h"

#include <QCryptographicHash>
#include <QStandardPaths>
#include <QTest>

using namespace flotilla;
using namespace flotilla::test;

class TestWorktrees final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // Where the worktree goes, its branch, and the agent's cwd in it; collisions never overwrite.
    void createPlacesAWorktree() {
        WorktreeFixture f;
        QVERIFY(f.start());
        const QString main = f.repo->head();
        // flotilla/beta exists already: the agent gets flotilla/beta-2, the old one stays.
        QCOMPARE(f.repo->run({QStringLiteral("branch"), QStringLiteral("flotilla/beta")}).exitCode,
                 0);
        const HttpResponse r =
            f.create(QStringLiteral("beta"), true,
                     {{QStringLiteral("cwd"), QString(f.rig.cwd + QStringLiteral("/src"))}});
        QCOMPARE(r.status, 201);
        const QJsonObject w = f.worktreeOf(r);
        const QByteArray hash =
            QCryptographicHash::hash(f.rig.cwd.toUtf8(), QCryptographicHash::Sha1).toHex().left(8);
        const QString expected =
            QDir(f.rig.svc->config().dataDir + QStringLiteral("-worktrees")).canonicalPath() +
            QStringLiteral("/project-") + QString::fromLatin1(hash) + QStringLiteral("/beta");
        QCOMPARE(str(w, "path"), expected);
        QCOMPARE(str(w, "repo"), f.rig.cwd);
        QCOMPARE(str(w, "branch"), QStringLiteral("flotilla/beta-2"));
        QCOMPARE(str(w, "baseRef"), QStringLiteral("main"));
        QCOMPARE(str(w, "baseCommit"), main);
        QCOMPARE(str(r.object(), "cwd"), expected + QStringLiteral("/src"));
        QCOMPARE(f.repo->rev(QStringLiteral("refs/heads/flotilla/beta")), main);
        QCOMPARE(f.repo->status(str(w, "path")), QString());
        QVERIFY(QFile::exists(expected + QStringLiteral("/shared.txt")));
        // Announced and listed with its worktree.
        const QJsonObject created =
            waitPayload(*f.rig.ws, "agent_created", 1, field("name", QStringLiteral("beta")));
        QCOMPARE(obj(created.value(QStringLiteral("worktree"))), w);
        QCOMPARE(obj(f.rig.agent(str(r.object(), "id")).value(QStringLiteral("worktree"))), w);
        // The rig's own agent has none.
        QVERIFY(f.rig.agent().value(QStringLiteral("worktree")).isNull());

        // A named branch from a named base; the directory of a second "beta"-like name differs.
        QCOMPARE(f.repo->run({QStringLiteral("tag"), QStringLiteral("v1")}).exitCode, 0);
        const HttpResponse named =
            f.create(QStringLiteral("Beta two!"),
                     QJsonObject{{QStringLiteral("baseRef"), QStringLiteral("v1")},
                                 {QStringLiteral("branch"), QStringLiteral("feature/x")}});
        QCOMPARE(named.status, 201);
        const QJsonObject w2 = f.worktreeOf(named);
        QCOMPARE(str(w2, "branch"), QStringLiteral("feature/x"));
        QCOMPARE(str(w2, "baseRef"), QStringLiteral("v1"));
        QVERIFY(str(w2, "path").endsWith(QStringLiteral("/Beta-two")));
    }

    void createRefusals_data() {
        QTest::addColumn<QString>("cwd"); // "repo", or "plain" (not a repository)
        QTest::addColumn<QString>("worktree");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("not a repository") << "plain"
                                          << "true" << 422 << "not_a_repository";
        QTest::newRow("unknown base") << "repo"
                                      << "{\"baseRef\": \"nope\"}" << 422 << "unknown_ref";
        QTest::newRow("bad branch") << "repo"
                                    << "{\"branch\": \"a..b\"}" << 422 << "invalid_value";
        QTest::newRow("option-like base") << "repo"
                                          << "{\"baseRef\": \"-x\"}" << 422 << "invalid_value";
        QTest::newRow("unknown key") << "repo"
                                     << "{\"bass\": \"main\"}" << 422 << "unknown_field";
        QTest::newRow("wrong type") << "repo"
                                    << "\"yes\"" << 400 << "wrong_type";
        QTest::newRow("base wrong type") << "repo"
                                         << "{\"baseRef\": 3}" << 400 << "wrong_type";
    }
    void createRefusals() {
        QFETCH(QString, cwd);
        QFETCH(QString, worktree);
        QFETCH(int, status);
        QFETCH(QString, code);
        WorktreeFixture f;
        QVERIFY(f.start());
        const QString plain = f.rig.svc->workDir() + QStringLiteral("/plain");
        QDir().mkpath(plain);
        const QJsonValue w = QJsonDocument::fromJson("[" + worktree.toUtf8() + "]").array().at(0);
        const HttpResponse r =
            f.create(QStringLiteral("refused"), w,
                     {{QStringLiteral("cwd"), cwd == QLatin1String("plain") ? plain : f.rig.cwd}});
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
        // Nothing made: no agent, no branch, no worktree.
        QCOMPARE(f.rig.http.get(f.rig.svc->url(QStringLiteral("/api/agents"))).array().size(), 1);
        QCOMPARE(f.repo->run({QStringLiteral("branch"), QStringLiteral("--list")}).out,
                 QStringLiteral("* main"));
        QVERIFY(!QFileInfo::exists(f.rig.svc->config().dataDir + QStringLiteral("-worktrees")) ||
                QDir(f.rig.svc->config().dataDir + QStringLiteral("-worktrees"))
                    .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                    .isEmpty());
    }

    // Routes on agents without a worktree, unknown agents and bad parameters.
    void routeRefusals_data() {
        QTest::addColumn<QString>("method");
        QTest::addColumn<QString>("path"); // $id: the rig's agent (no worktree); $wt: one with
        QTest::addColumn<QString>("body");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("code");
        QTest::newRow("diff, unknown agent") << "GET"
                                             << "/api/agents/nope/diff"
                                             << "" << 404 << "not_found";
        QTest::newRow("diff, no worktree") << "GET"
                                           << "/api/agents/$id/diff"
                                           << "" << 409 << "no_worktree";
        QTest::newRow("diff, path outside") << "GET"
                                            << "/api/agents/$wt/diff?path=../x"
                                            << "" << 422 << "invalid_value";
        QTest::newRow("merge, unknown agent") << "POST"
                                              << "/api/agents/nope/merge"
                                              << "{\"strategy\": \"merge\"}" << 404 << "not_found";
        QTest::newRow("merge, no worktree") << "POST"
                                            << "/api/agents/$id/merge"
                                            << "{\"strategy\": \"merge\"}" << 409 << "no_worktree";
        QTest::newRow("merge, bad strategy")
            << "POST"
            << "/api/agents/$wt/merge"
            << "{\"strategy\": \"octopus\"}" << 422 << "invalid_value";
        QTest::newRow("merge, no strategy") << "POST"
                                            << "/api/agents/$wt/merge"
                                            << "{}" << 400 << "missing_field";
        QTest::newRow("merge, unknown target")
            << "POST"
            << "/api/agents/$wt/merge"
            << "{\"strategy\": \"merge\", \"target\": \"nope\"}" << 422 << "unknown_ref";
        QTest::newRow("merge, target not checked out")
            << "POST"
            << "/api/agents/$wt/merge"
            << "{\"strategy\": \"merge\", \"target\": \"side\"}" << 409 << "merge_refused";
        QTest::newRow("merge, own branch")
            << "POST"
            << "/api/agents/$wt/merge"
            << "{\"strategy\": \"merge\", \"target\": \"flotilla/wt\"}" << 422 << "invalid_value";
        QTest::newRow("review, unknown agent")
            << "POST"
            << "/api/agents/nope/review"
            << "{\"comments\": [], \"message\": \"hi\"}" << 404 << "not_found";
        QTest::newRow("review, line 0")
            << "POST"
            << "/api/agents/$wt/review"
            << "{\"comments\": [{\"path\": \"a\", \"line\": 0, \"body\": \"x\"}]}" << 422
            << "invalid_value";
        QTest::newRow("review, nothing") << "POST"
                                         << "/api/agents/$wt/review"
                                         << "{\"comments\": []}" << 422 << "invalid_value";
        QTest::newRow("review, no comments") << "POST"
                                             << "/api/agents/$wt/review"
                                             << "{}" << 400 << "missing_field";
        QTest::newRow("delete, bad flag") << "DELETE"
                                          << "/api/agents/$wt?discard=maybe"
                                          << "" << 400 << "wrong_type";
    }
    void routeRefusals() {
        QFETCH(QString, method);
        QFETCH(QString, path);
        QFETCH(QString, body);
        QFETCH(int, status);
        QFETCH(QString, code);
        WorktreeFixture f;
        QVERIFY(f.start());
        QCOMPARE(f.repo->run({QStringLiteral("branch"), QStringLiteral("side")}).exitCode, 0);
        const HttpResponse created = f.create(QStringLiteral("wt"));
        QCOMPARE(created.status, 201);
        path.replace(QStringLiteral("$id"), f.rig.agentId);
        path.replace(QStringLiteral("$wt"), str(created.object(), "id"));
        const HttpResponse r =
            f.rig.http.send(method.toLatin1(), f.rig.svc->url(path), body.toUtf8());
        QCOMPARE(r.status, status);
        QCOMPARE(str(r.object(), "code"), code);
    }

    // Uncommitted, untracked, renamed and binary work against the merge base; ?path=; the cap.
    void diffShowsAllWork() {
        WorktreeFixture f;
        QVERIFY(f.start());
        const HttpResponse created = f.create(QStringLiteral("differ"));
        const QString id = str(created.object(), "id");
        const QString wt = str(f.worktreeOf(created), "path");
        f.repo->write(QStringLiteral("shared.txt"), "one\nTWO\nthree\n", wt);
        f.repo->write(QStringLiteral("new.txt"), "fresh\n", wt);
        QVERIFY(f.repo
                    ->run({QStringLiteral("mv"), QStringLiteral("src/main.c"),
                           QStringLiteral("src/app.c")},
                          wt)
                    .exitCode == 0);
        f.repo->write(QStringLiteral("blob.bin"), QByteArray("\x00\x01\x02binary", 9), wt);
        f.repo->write(QStringLiteral(".gitignore"), "build/\n", wt);
        f.repo->write(QStringLiteral("build/out.o"), "ignored\n", wt);
        const QString statusBefore = f.repo->status(wt);

        const HttpResponse r = f.diff(id);
        QCOMPARE(r.status, 200);
        const QJsonObject d = r.object();
        QCOMPARE(str(d, "baseCommit"), f.repo->head());
        QCOMPARE(str(d, "head"), f.repo->head());
        QCOMPARE(str(d, "branch"), QStringLiteral("flotilla/differ"));
        QCOMPARE(d.value(QStringLiteral("truncated")).toBool(), false);
        const QJsonArray files = d.value(QStringLiteral("files")).toArray();
        QCOMPARE(paths(files),
                 QStringList({QStringLiteral(".gitignore"), QStringLiteral("blob.bin"),
                              QStringLiteral("new.txt"), QStringLiteral("shared.txt"),
                              QStringLiteral("src/app.c")}));
        const QJsonObject shared = files.at(3).toObject();
        QCOMPARE(str(shared, "status"), QStringLiteral("modified"));
        QCOMPARE(shared.value(QStringLiteral("additions")).toInt(), 1);
        QCOMPARE(shared.value(QStringLiteral("deletions")).toInt(), 1);
        QCOMPARE(str(files.at(2).toObject(), "status"), QStringLiteral("added"));
        const QJsonObject renamed = files.at(4).toObject();
        QCOMPARE(str(renamed, "status"), QStringLiteral("renamed"));
        QCOMPARE(str(renamed, "oldPath"), QStringLiteral("src/main.c"));
        const QJsonObject bin = files.at(1).toObject();
        QCOMPARE(bin.value(QStringLiteral("binary")).toBool(), true);
        QCOMPARE(bin.value(QStringLiteral("additions")).toInt(), 0);
        const QString patch = str(d, "patch");
        QVERIFY2(patch.contains(QStringLiteral("-two\n+TWO\n")), qPrintable(patch));
        QVERIFY(patch.contains(QStringLiteral("+fresh\n")));
        QVERIFY(patch.contains(QStringLiteral("Binary files /dev/null and b/blob.bin differ")));
        QVERIFY(!patch.contains(QStringLiteral("ignored")));
        // The agent's own index is not touched by reading it.
        QCOMPARE(f.repo->status(wt), statusBefore);

        const QJsonObject one = f.diff(id, QStringLiteral("?path=shared.txt")).object();
        QCOMPARE(paths(one.value(QStringLiteral("files")).toArray()),
                 QStringList{QStringLiteral("shared.txt")});
        QVERIFY(
            str(one, "patch").startsWith(QStringLiteral("diff --git a/shared.txt b/shared.txt")));
        QCOMPARE(
            f.diff(id, QStringLiteral("?path=nothing.txt")).object().value(QStringLiteral("files")),
            QJsonValue(QJsonArray()));

        // Over 512 KiB of patch: cut at a line end, and said so.
        QByteArray big;
        for (int i = 0; big.size() < 700 * 1024; ++i)
            big += "line " + QByteArray::number(i) + " of a large generated file\n";
        f.repo->write(QStringLiteral("big.txt"), big, wt);
        const QJsonObject capped = f.diff(id).object();
        QCOMPARE(capped.value(QStringLiteral("truncated")).toBool(), true);
        const QByteArray cut = str(capped, "patch").toUtf8();
        QVERIFY(cut.size() <= 512 * 1024 && cut.size() > 400 * 1024);
        QVERIFY(cut.endsWith('\n'));
        QCOMPARE(paths(capped.value(QStringLiteral("files")).toArray()).size(), 6);
    }

    // Squash then rebase, in a repository without user.name/user.email: Flotilla's identity.
    void squashAndRebase() {
        WorktreeFixture f;
        QVERIFY(f.start(/*identity=*/false));
        const HttpResponse g = f.create(QStringLiteral("gamma"));
        const QString gid = str(g.object(), "id");
        const QString gwt = str(f.worktreeOf(g), "path");
        f.repo->write(QStringLiteral("a.txt"), "a\n", gwt);
        QVERIFY(f.repo->commitAll(QStringLiteral("gamma: a"), gwt));
        f.repo->write(QStringLiteral("b.txt"), "b\n", gwt); // uncommitted, untracked
        const QString before = f.repo->head();

        const HttpResponse s =
            f.merge(gid, {{QStringLiteral("strategy"), QStringLiteral("squash")},
                          {QStringLiteral("message"), QStringLiteral("Gamma's work")}});
        QCOMPARE(s.status, 200);
        QCOMPARE(str(s.object(), "strategy"), QStringLiteral("squash"));
        QCOMPARE(str(s.object(), "target"), QStringLiteral("main"));
        QCOMPARE(str(s.object(), "targetPath"), f.rig.cwd);
        QVERIFY(!str(s.object(), "autoCommit").isEmpty());
        const QString tip = f.repo->head();
        QCOMPARE(str(s.object(), "commit"), tip);
        // One new commit on main, with both files, made as Flotilla.
        QCOMPARE(f.repo->rev(QStringLiteral("HEAD~1")), before);
        QCOMPARE(f.repo
                     ->run({QStringLiteral("log"), QStringLiteral("-1"),
                            QStringLiteral("--format=%s|%an <%ae>")})
                     .out,
                 QStringLiteral("Gamma's work|Flotilla <flotilla@localhost>"));
        QCOMPARE(GitRepo::read(f.rig.cwd + QStringLiteral("/b.txt")), QByteArray("b\n"));
        QCOMPARE(f.repo->status(), QString());
        // The agent goes on from the squash: nothing left to show.
        QCOMPARE(f.repo->head(gwt), tip);
        QCOMPARE(f.repo->status(gwt), QString());
        QCOMPARE(f.diff(gid).object().value(QStringLiteral("files")), QJsonValue(QJsonArray()));
        QCOMPARE(str(obj(f.rig.agent(gid).value(QStringLiteral("worktree"))), "baseCommit"), tip);
        // Merging again: nothing to do.
        const HttpResponse again =
            f.merge(gid, {{QStringLiteral("strategy"), QStringLiteral("merge")}});
        QCOMPARE(again.status, 200);
        QCOMPARE(again.object().value(QStringLiteral("alreadyUpToDate")).toBool(), true);
        QCOMPARE(f.repo->head(), tip);

        // Rebase: main moved on meanwhile; the agent's commits land on top, no merge commit.
        const HttpResponse d = f.create(QStringLiteral("delta"));
        const QString did = str(d.object(), "id");
        const QString dwt = str(f.worktreeOf(d), "path");
        f.repo->write(QStringLiteral("c.txt"), "c\n");
        QVERIFY(f.repo->commitAll(QStringLiteral("main: c")));
        f.repo->write(QStringLiteral("d.txt"), "d\n", dwt);
        QVERIFY(f.repo->commitAll(QStringLiteral("delta: d"), dwt));
        const QString mainC = f.repo->head();
        const HttpResponse rb =
            f.merge(did, {{QStringLiteral("strategy"), QStringLiteral("rebase")}});
        QCOMPARE(rb.status, 200);
        QVERIFY(str(rb.object(), "autoCommit").isEmpty() ||
                rb.object().value(QStringLiteral("autoCommit")).isNull());
        QCOMPARE(f.repo->rev(QStringLiteral("HEAD~1")), mainC);
        QCOMPARE(
            f.repo
                ->run({QStringLiteral("log"), QStringLiteral("-1"), QStringLiteral("--format=%s")})
                .out,
            QStringLiteral("delta: d"));
        QCOMPARE(f.repo
                     ->run({QStringLiteral("rev-list"), QStringLiteral("--merges"),
                            before + QStringLiteral("..HEAD")})
                     .out,
                 QString());
        QCOMPARE(f.repo->head(dwt), f.repo->head());
        QCOMPARE(f.repo->status(), QString());
    }

    // git refuses after the agent's work was committed (a local change in the target's checkout
    // that the merge would overwrite): the commit is taken back and the index restored exactly.
    void refusedMergeIsUndone() {
        WorktreeFixture f;
        QVERIFY(f.start());
        const HttpResponse created = f.create(QStringLiteral("undone"));
        const QString id = str(created.object(), "id");
        const QString wt = str(f.worktreeOf(created), "path");
        f.repo->write(QStringLiteral("shared.txt"), "one\nstaged\nthree\n", wt);
        QCOMPARE(f.repo->run({QStringLiteral("add"), QStringLiteral("shared.txt")}, wt).exitCode,
                 0);
        f.repo->write(QStringLiteral("shared.txt"), "one\nstaged\nthree\nunstaged\n", wt);
        f.repo->write(QStringLiteral("new.txt"), "untracked\n", wt);
        f.repo->write(QStringLiteral("shared.txt"), "one\ntwo\nthree\nlocal\n");
        const QString agentHead = f.repo->head(wt);
        const QString agentStatus = f.repo->status(wt);
        const QString mainHead = f.repo->head();
        QCOMPARE(agentStatus, QStringLiteral("MM shared.txt\n?? new.txt"));

        for (const char *strategy : {"merge", "squash", "rebase"}) {
            const HttpResponse r =
                f.merge(id, {{QStringLiteral("strategy"), QLatin1String(strategy)}});
            QCOMPARE(r.status, 409);
            QCOMPARE(str(r.object(), "code"), QStringLiteral("merge_refused"));
            QCOMPARE(f.repo->head(wt), agentHead);
            QCOMPARE(f.repo->status(wt), agentStatus);
            QCOMPARE(f.repo->run({QStringLiteral("show"), QStringLiteral(":shared.txt")}, wt).out,
                     QStringLiteral("one\nstaged\nthree"));
            QCOMPARE(f.repo->head(), mainHead);
            QCOMPARE(f.repo->status(), QStringLiteral("M shared.txt"));
            QCOMPARE(GitRepo::read(f.rig.cwd + QStringLiteral("/shared.txt")),
                     QByteArray("one\ntwo\nthree\nlocal\n"));
        }
    }

    // Clean worktrees go, dirty ones stay unless discard=true; branches only when asked.
    void deleteCleanAndDirty() {
        WorktreeFixture f;
        QVERIFY(f.start());
        auto make = [&f](const QString &name) {
            const HttpResponse r = f.create(name);
            return std::make_pair(str(r.object(), "id"), f.worktreeOf(r));
        };
        const auto [clean, cleanWt] = make(QStringLiteral("clean"));
        HttpResponse r = f.remove(clean);
        QCOMPARE(r.status, 200);
        QJsonObject report = obj(r.object().value(QStringLiteral("worktree")));
        QCOMPARE(report.value(QStringLiteral("removed")).toBool(), true);
        QCOMPARE(report.value(QStringLiteral("branchDeleted")).toBool(), false);
        QVERIFY(!QFileInfo::exists(str(cleanWt, "path")));
        QVERIFY(!f.repo->rev(QStringLiteral("refs/heads/flotilla/clean")).isEmpty());

        const auto [dirty, dirtyWt] = make(QStringLiteral("dirty"));
        f.repo->write(QStringLiteral("notes.txt"), "keep me\n", str(dirtyWt, "path"));
        r = f.remove(dirty, QStringLiteral("?deleteBranch=true"));
        QCOMPARE(r.status, 200);
        report = obj(r.object().value(QStringLiteral("worktree")));
        QCOMPARE(report.value(QStringLiteral("removed")).toBool(), false);
        QCOMPARE(report.value(QStringLiteral("uncommittedPaths")),
                 QJsonValue(QJsonArray{QStringLiteral("notes.txt")}));
        QVERIFY(str(report, "reason").contains(QStringLiteral("discard=true")));
        QVERIFY(QFileInfo::exists(str(dirtyWt, "path") + QStringLiteral("/notes.txt")));
        QCOMPARE(f.rig.http.get(f.rig.svc->url(QStringLiteral("/api/agents/") + dirty)).status,
                 404);

        // A branch with unmerged commits stays without discard.
        const auto [ahead, aheadWt] = make(QStringLiteral("ahead"));
        f.repo->write(QStringLiteral("x.txt"), "x\n", str(aheadWt, "path"));
        QVERIFY(f.repo->commitAll(QStringLiteral("x"), str(aheadWt, "path")));
        r = f.remove(ahead, QStringLiteral("?deleteBranch=true"));
        report = obj(r.object().value(QStringLiteral("worktree")));
        QCOMPARE(report.value(QStringLiteral("removed")).toBool(), true);
        QCOMPARE(report.value(QStringLiteral("branchDeleted")).toBool(), false);
        QVERIFY(!f.repo->rev(QStringLiteral("refs/heads/flotilla/ahead")).isEmpty());

        // Bulk: one merged clean (branch goes), one dirty that discard throws away.
        const auto [b1, b1Wt] = make(QStringLiteral("bulk-1"));
        const auto [b2, b2Wt] = make(QStringLiteral("bulk-2"));
        f.repo->write(QStringLiteral("shared.txt"), "changed\n", str(b2Wt, "path"));
        r = f.rig.post(QStringLiteral("/api/agents/bulk/delete?deleteBranch=true&discard=true"),
                       {{QStringLiteral("agentIds"), QJsonArray{b1, b2, f.rig.agentId}}});
        QCOMPARE(r.status, 200);
        QCOMPARE(r.object().value(QStringLiteral("succeeded")).toArray().size(), 3);
        const QJsonArray reports = r.object().value(QStringLiteral("worktrees")).toArray();
        QCOMPARE(reports.size(), 2);
        for (const QJsonValue &v : reports) {
            QCOMPARE(v.toObject().value(QStringLiteral("removed")).toBool(), true);
            QCOMPARE(v.toObject().value(QStringLiteral("branchDeleted")).toBool(), true);
        }
        QCOMPARE(str(reports.at(0).toObject(), "agentId"), b1);
        QVERIFY(!QFileInfo::exists(str(b2Wt, "path")));
        QVERIFY(f.repo->rev(QStringLiteral("refs/heads/flotilla/bulk-2")).isEmpty());
        // An agent without a worktree still answers 204.
        const QString plainId = str(f.rig.createAgent(QStringLiteral("plain")).object(), "id");
        QCOMPARE(f.remove(plainId).status, 204);
    }
};

QTEST_MAIN(TestWorktrees)
#include "tst_worktrees.moc"
