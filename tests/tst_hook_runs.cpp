// Hook runs (docs/api.md "Hooks"): real commands run for real events. A hook on turn_finished
// after a turn of the real Claude CLI against the mock model reads the event on stdin and its
// environment, and the agent's own token is refused on every hooks route; agent_created hooks (no
// model needed) for the working directory, filters, failures, start errors, the output cap, the
// timeout that ends the whole process group, the cap of 4 at once; the newest 200 runs kept per
// hook. The routes and their refusals are in tst_hooks.

#include "hooks/HookRunner.h"
#include "hooks/HookStore.h"
#include "support/FileProbe.h"
#include "support/GitRepo.h"
#include "support/HookFixture.h"
#include "usage/UsageService.h"

#include <QDir>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QScopeGuard>
#include <QTest>

#include <algorithm>
#include <cerrno>
#include <csignal>

using namespace flotilla;
using namespace flotilla::test;

namespace {

namespace k = wire::key;
namespace c = wire::code;
namespace sk = wire::shaping::key;
namespace sm = wire::shaping::msg;

const QByteArray kServiceToken = "hooks-service-token-0123456789abcdef";

bool groupAlive(qint64 pgid) {
    return pgid > 0 && (::kill(pid_t(-pgid), 0) == 0 || errno != ESRCH);
}

} // namespace

class TestHookRuns final : public QObject, private HookFixture {
    Q_OBJECT

    // For the runs that leave nothing behind (their hooks are deleted): one service for all.
    std::unique_ptr<AgentRig> m_shared;

private Q_SLOTS:
    void initTestCase() {
        m_shared = std::make_unique<AgentRig>();
        QVERIFY(m_shared->start());
    }
    void cleanupTestCase() { m_shared.reset(); }

    // A real turn of the real Claude CLI against the mock: the turn_finished hook reads the event
    // on stdin, FLOTILLA_EVENT and FLOTILLA_AGENT_ID in an environment without the service's
    // token, runs in the agent's cwd; agent_finished (a notification channel event) runs too; a
    // hook filtered on another agent does not. With the agent's own token (from its live
    // process) every hooks route answers 403 and nothing changes.
    void turnFinishedWithTheRealCli() {
        AgentRig rig([](ServerConfig &c) {
            c.authToken = kServiceToken;
            c.agentEnvironment.insert(QStringLiteral("AUTH_TOKEN"),
                                      QString::fromLatin1(kServiceToken));
            c.agentEnvironment.insert(QStringLiteral("FLOTILLA_TOKEN"),
                                      QString::fromLatin1(kServiceToken));
        });
        QVERIFY(rig.start());
        const QString other = str(rig.createAgent(QStringLiteral("agent-2")).object(), k::Id);
        QVERIFY(!other.isEmpty());
        const QString dir = rig.svc->workDir();
        const QString stdinFile = dir + QStringLiteral("/stdin.json");
        const QString envFile = dir + QStringLiteral("/env.txt");
        const QString pwdFile = dir + QStringLiteral("/pwd.txt");
        const QString finishedFile = dir + QStringLiteral("/finished.json");
        const QJsonObject onTurn =
            addHook(rig, hookOn(QStringLiteral("turn_finished"), QStringLiteral("on turn"),
                                sh(QStringLiteral("cat > \"$1\"; env > \"$2\"; pwd > \"$3\""),
                                   {stdinFile, envFile, pwdFile}),
                                {{sk::Filter, QJsonObject{{k::AgentId, rig.agentId}}},
                                 {k::Cwd, QStringLiteral("agent")}}));
        const QJsonObject onFinished =
            addHook(rig, hookOn(QStringLiteral("agent_finished"), QStringLiteral("on finished"),
                                sh(QStringLiteral("cat > \"$1\""), {finishedFile})));
        const QJsonObject otherAgent =
            addHook(rig, hookOn(QStringLiteral("turn_finished"), QStringLiteral("other agent"),
                                {QStringLiteral("true")},
                                {{sk::Filter, QJsonObject{{k::AgentId, other}}}}));

        rig.model().queueText(QStringLiteral("all done here"));
        QCOMPARE(rig.send(QStringLiteral("do it")).status, 200);
        const QJsonObject run = awaitRun(rig, str(onTurn, k::Id), 60000);
        QVERIFY2(!run.isEmpty(), "no hook_run for the turn");
        QVERIFY(!awaitRun(rig, str(onFinished, k::Id)).isEmpty());

        // The event on stdin.
        const QJsonObject event = QJsonDocument::fromJson(readAll(stdinFile)).object();
        QCOMPARE(str(event, sk::Event), QStringLiteral("turn_finished"));
        QCOMPARE(str(event, k::AgentId), rig.agentId);
        QCOMPARE(str(event, k::AgentName), QStringLiteral("agent-1"));
        QVERIFY(event.value(k::Timestamp).toInteger() > 0);
        const QJsonObject turn = event.value(k::Payload).toObject();
        QCOMPARE(str(turn, wire::shaping::hookkey::Result), QStringLiteral("all done here"));
        QCOMPARE(turn.value(wire::shaping::hookkey::IsError).toBool(true), false);
        const QJsonObject finished = QJsonDocument::fromJson(readAll(finishedFile)).object();
        QCOMPARE(str(finished, sk::Event), QStringLiteral("agent_finished"));
        QCOMPARE(str(finished.value(k::Payload).toObject(), QLatin1String("result")),
                 QStringLiteral("all done here"));

        // Its environment and working directory.
        const QHash<QString, QString> env = parseEnv(readAll(envFile));
        QCOMPARE(env.value(QStringLiteral("FLOTILLA_EVENT")), QStringLiteral("turn_finished"));
        QCOMPARE(env.value(QStringLiteral("FLOTILLA_AGENT_ID")), rig.agentId);
        QCOMPARE(env.value(QStringLiteral("FLOTILLA_HOOK_ID")), str(onTurn, k::Id));
        QCOMPARE(env.value(QStringLiteral("HOME")), rig.home);
        QVERIFY(!env.contains(QStringLiteral("AUTH_TOKEN")));
        QVERIFY(!env.contains(QStringLiteral("FLOTILLA_TOKEN")));
        QVERIFY(!readAll(envFile).contains(kServiceToken));
        QCOMPARE(QString::fromUtf8(readAll(pwdFile).trimmed()), QDir(rig.cwd).canonicalPath());

        // The run: broadcast, listed, and the hook's lastRun.
        QCOMPARE(str(run, sk::HookId), str(onTurn, k::Id));
        QCOMPARE(str(run, sk::Event), QStringLiteral("turn_finished"));
        QCOMPARE(str(run, k::AgentId), rig.agentId);
        QCOMPARE(run.value(sk::ExitCode).toInt(-1), 0);
        QVERIFY(run.value(sk::Signal).isNull());
        QVERIFY(run.value(sk::Error).isNull());
        QCOMPARE(run.value(sk::TimedOut).toBool(true), false);
        QCOMPARE(run.value(sk::Failed).toBool(true), false);
        QVERIFY(run.value(sk::StartedAt).toInteger() > 0);
        QVERIFY(run.contains(sk::DurationMs) && run.contains(sk::OutputTruncated));
        QCOMPARE(rig.http.get(hookUrl(rig, str(onTurn, k::Id), QStringLiteral("/runs"))).array(),
                 QJsonArray{run});
        QCOMPARE(rig.http.get(hookUrl(rig, str(onTurn, k::Id))).object().value(sk::LastRun), run);
        // The hook filtered on agent-2 was never queued.
        QCOMPARE(rig.svc->app().hookRunner().queuedCount(), 0);
        QVERIFY(rig.http.get(hookUrl(rig, str(otherAgent, k::Id)))
                    .object()
                    .value(sk::LastRun)
                    .isNull());

        // The agent's own token, as its live process holds it.
        const QString headerFile = rig.svc->config().dataDir + QStringLiteral("/agent-tokens/") +
                                   rig.agentId + QStringLiteral(".header");
        const QByteArray header = readAll(headerFile).trimmed();
        QVERIFY2(header.startsWith("X-Auth-Token: "), header.constData());
        HttpClient agent(header.mid(14));
        const QString id = str(onTurn, k::Id);
        const QList<HttpResponse> refused{
            agent.post(rig.svc->url(QStringLiteral("/api/hooks")),
                       hookOn(QStringLiteral("agent_created"), QStringLiteral("mine"),
                              {QStringLiteral("true")})),
            agent.patch(hookUrl(rig, id), {{sk::Command, QJsonArray{QStringLiteral("true")}}}),
            agent.del(hookUrl(rig, id)),
            agent.get(rig.svc->url(QStringLiteral("/api/hooks"))),
            agent.get(hookUrl(rig, id)),
            agent.get(hookUrl(rig, id, QStringLiteral("/runs"))),
        };
        for (const HttpResponse &r : refused)
            expectError(r, 403, c::Forbidden);
        QCOMPARE(rig.http.get(rig.svc->url(QStringLiteral("/api/hooks"))).array().size(), 3);
        QCOMPARE(rig.http.get(hookUrl(rig, id)).object().value(sk::Command),
                 onTurn.value(sk::Command));
    }

    // agent_created needs no model. cwd null (and "agent" without an agent) is the agents' HOME;
    // a class filter, a disabled hook.
    void agentCreatedFiltersAndHome() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QJsonObject any = addHook(
            rig, hookOn(QStringLiteral("agent_created"), QStringLiteral("any"),
                        sh(QStringLiteral("pwd; echo \"$FLOTILLA_EVENT $FLOTILLA_AGENT_ID\"; "
                                          "cat"))));
        const QJsonObject reviewers = addHook(
            rig, hookOn(QStringLiteral("agent_created"), QStringLiteral("reviewers"),
                        {QStringLiteral("true")},
                        {{sk::Filter, QJsonObject{{k::Class, QStringLiteral("reviewer")}}}}));
        const QJsonObject disabled =
            addHook(rig, hookOn(QStringLiteral("agent_created"), QStringLiteral("off"),
                                {QStringLiteral("true")}, {{sk::Enabled, false}}));

        const QString builder = str(rig.createAgent(QStringLiteral("b-1")).object(), k::Id);
        const QJsonObject run = awaitRun(rig, str(any, k::Id));
        QVERIFY(!run.isEmpty());
        const QStringList lines = str(run, sk::Output).split(QLatin1Char('\n'));
        QCOMPARE(lines.value(0), rig.home);
        QCOMPARE(lines.value(1), QStringLiteral("agent_created ") + builder);
        const QJsonObject event = QJsonDocument::fromJson(lines.value(2).toUtf8()).object();
        QCOMPARE(str(event, sk::Event), QStringLiteral("agent_created"));
        QCOMPARE(str(event, k::AgentName), QStringLiteral("b-1"));
        QCOMPARE(str(event.value(k::Payload).toObject(), k::Id), builder);
        QCOMPARE(str(event.value(k::Payload).toObject(), k::Cwd), rig.cwd);
        // Queued together with the first one, so they ran (or not) by now.
        QTRY_COMPARE(rig.svc->app().hookRunner().runningCount(), 0);
        QVERIFY(runsOf(rig, str(reviewers, k::Id)).isEmpty());
        QVERIFY(runsOf(rig, str(disabled, k::Id)).isEmpty());

        const QString reviewer =
            str(rig.createAgent(QStringLiteral("r-1"), {{k::Class, QStringLiteral("reviewer")}})
                    .object(),
                k::Id);
        const QJsonObject matched = awaitRun(rig, str(reviewers, k::Id));
        QCOMPARE(str(matched, k::AgentId), reviewer);
        QCOMPARE(matched.value(sk::Failed).toBool(true), false);
        QTRY_COMPARE(runsOf(rig, str(any, k::Id)).size(), 2);
        QVERIFY(runsOf(rig, str(disabled, k::Id)).isEmpty());
    }

    // The other events, each caused for real without a model: a notification, an exec task, a
    // budget reached (usage recorded in-process, as tst_usage_budgets does), a worktree merge.
    // Each hook is `cat`: its output is the event it read.
    void otherEventsReachHooks() {
        AgentRig rig([](ServerConfig &c) { GitRepo::hermetic(c); });
        QVERIFY(rig.start());
        rig.cwd = QDir(rig.cwd).canonicalPath();
        GitRepo repo(rig.cwd, rig.svc->config().agentEnvironment);
        QVERIFY(repo.init({{QStringLiteral("a.txt"), "one\n"}}));
        QHash<QString, QString> hookIds; // event -> hook
        for (const QString &event :
             {QStringLiteral("agent_notification"), QStringLiteral("permission_request"),
              QStringLiteral("exec_finished"), QStringLiteral("budget_exceeded"),
              QStringLiteral("worktree_merged")})
            hookIds.insert(event,
                           str(addHook(rig, hookOn(event, event, {QStringLiteral("cat")})), k::Id));
        auto eventOf = [&](const QString &event) {
            const QJsonObject run = awaitRun(rig, hookIds.value(event));
            return QJsonDocument::fromJson(str(run, sk::Output).toUtf8()).object();
        };

        QCOMPARE(rig.post(QStringLiteral("/api/notify"), {{k::AgentId, rig.agentId},
                                                          {k::Title, QStringLiteral("t")},
                                                          {k::Message, QStringLiteral("m")}})
                     .status,
                 201);
        const QJsonObject notified = eventOf(QStringLiteral("agent_notification"));
        QCOMPARE(str(notified, k::AgentId), rig.agentId);
        QCOMPARE(str(notified.value(k::Payload).toObject(), k::Title), QStringLiteral("t"));

        // The CLI's permission hook, held open until someone answers (nobody does here).
        QNetworkAccessManager nam;
        QNetworkRequest ask(
            rig.svc->url(QStringLiteral("/api/agents/%1/permission-check").arg(rig.agentId)));
        ask.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray("application/json"));
        nam.post(ask,
                 json({{QStringLiteral("hook_event_name"), QStringLiteral("PermissionRequest")},
                       {QStringLiteral("tool_name"), QStringLiteral("Bash")},
                       {QStringLiteral("tool_input"),
                        QJsonObject{{sk::Command, QStringLiteral("echo asked")}}}}));
        const QJsonObject asked = eventOf(QStringLiteral("permission_request"));
        QCOMPARE(str(asked, k::AgentId), rig.agentId);
        QVERIFY2(json(asked).contains("echo asked"), json(asked).constData()); // toolInput kept

        QCOMPARE(rig.post(QStringLiteral("/api/exec"),
                          {{k::AgentId, rig.agentId}, {sk::Command, QStringLiteral("exit 4")}})
                     .status,
                 200);
        const QJsonObject exec = eventOf(QStringLiteral("exec_finished"));
        QCOMPARE(str(exec, k::AgentId), rig.agentId);
        QCOMPARE(str(exec.value(k::Payload).toObject(), k::AgentName), QStringLiteral("agent-1"));
        QCOMPARE(exec.value(k::Payload).toObject().value(sk::ExitCode).toInt(), 4);

        QCOMPARE(rig.http
                     .patch(rig.svc->url(QStringLiteral("/api/agents/") + rig.agentId),
                            {{QStringLiteral("budget"),
                              QJsonObject{{QStringLiteral("costUsd"), 1.0},
                                          {QStringLiteral("period"), QStringLiteral("total")}}}})
                     .status,
                 200);
        UsageTotals spent;
        spent.turns = 1;
        spent.costUsd = 1.5;
        rig.svc->app().usage().record(rig.agentId, spent);
        const QJsonObject budget = eventOf(QStringLiteral("budget_exceeded"));
        QCOMPARE(str(budget, k::AgentId), rig.agentId);
        QCOMPARE(str(budget.value(k::Payload).toObject(), k::AgentId), rig.agentId);

        const QString worker =
            str(rig.createAgent(QStringLiteral("worker"), {{QStringLiteral("worktree"), true}})
                    .object(),
                k::Id);
        QVERIFY(!worker.isEmpty());
        const QString tree = str(rig.agent(worker).value(QStringLiteral("worktree")).toObject(),
                                 QLatin1String("path"));
        QFile file(tree + QStringLiteral("/b.txt"));
        QVERIFY(file.open(QIODevice::WriteOnly) && file.write("two\n") == 4);
        file.close();
        const HttpResponse merged =
            rig.post(QStringLiteral("/api/agents/%1/merge").arg(worker),
                     {{QStringLiteral("strategy"), QStringLiteral("merge")}});
        QVERIFY2(merged.status == 200, merged.body.constData());
        const QJsonObject merge = eventOf(QStringLiteral("worktree_merged"));
        QCOMPARE(str(merge, k::AgentId), worker);
        QCOMPARE(str(merge, k::AgentName), QStringLiteral("worker"));
        const QJsonObject mergePayload = merge.value(k::Payload).toObject();
        QCOMPARE(str(mergePayload, QLatin1String("strategy")), QStringLiteral("merge"));
        QCOMPARE(str(mergePayload, QLatin1String("target")), QStringLiteral("main"));
        QCOMPARE(str(mergePayload, QLatin1String("commit")),
                 str(merged.object(), QLatin1String("commit")));
    }

    // A failing exit, start errors, PATH lookup and the output cap: each run recorded as such and
    // broadcast, and the hook's lastRun shows it.
    void failuresAndOutput() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString gone = rig.svc->workDir() + QStringLiteral("/gone");
        QVERIFY(QDir().mkpath(gone));
        auto on = [&](const QString &name, const QJsonArray &command, const QJsonObject &x = {}) {
            return str(addHook(rig, hookOn(QStringLiteral("agent_created"), name, command, x)),
                       k::Id);
        };
        const QString exit3 =
            on(QStringLiteral("exit 3"), sh(QStringLiteral("echo oops; echo err >&2; exit 3")));
        const QString missing = on(QStringLiteral("missing"), {QStringLiteral("/no/such/hook")});
        const QString notInPath =
            on(QStringLiteral("not in path"), {QStringLiteral("no-such-hook-command-xyz")});
        const QString inPath = on(QStringLiteral("in path"), {QStringLiteral("true")});
        const QString big = on(QStringLiteral("big"),
                               sh(QStringLiteral("head -c 100000 /dev/zero | tr '\\000' x")));
        const QString noDir =
            on(QStringLiteral("no dir"), {QStringLiteral("true")}, {{k::Cwd, gone}});
        QVERIFY(QDir(gone).removeRecursively());

        QVERIFY(rig.createAgent(QStringLiteral("x")).status == 201);
        QVERIFY(rig.ws->waitFor(sm::HookRun, 6, 15000));

        const QJsonObject failed = runsOf(rig, exit3).value(0);
        QCOMPARE(failed.value(sk::Failed).toBool(), true);
        QCOMPARE(failed.value(sk::ExitCode).toInt(), 3);
        QVERIFY(failed.value(sk::Signal).isNull());
        QVERIFY(failed.value(sk::Error).isNull());
        QCOMPARE(str(failed, sk::Output), QStringLiteral("oops\nerr\n"));
        QCOMPARE(rig.http.get(hookUrl(rig, exit3)).object().value(sk::LastRun), failed);
        QCOMPARE(rig.http.get(hookUrl(rig, exit3, QStringLiteral("/runs"))).array(),
                 QJsonArray{failed});

        for (const QString &id : {missing, notInPath, noDir}) {
            const QJsonObject run = runsOf(rig, id).value(0);
            QVERIFY2(!str(run, sk::Error).isEmpty(), json(run).constData());
            QCOMPARE(run.value(sk::Failed).toBool(), true);
            QVERIFY(run.value(sk::ExitCode).isNull());
        }
        QVERIFY(str(runsOf(rig, notInPath).value(0), sk::Error).contains(QLatin1String("PATH")));
        QVERIFY(str(runsOf(rig, noDir).value(0), sk::Error).contains(gone));

        const QJsonObject ok = runsOf(rig, inPath).value(0);
        QCOMPARE(ok.value(sk::ExitCode).toInt(-1), 0);
        QCOMPARE(ok.value(sk::Failed).toBool(true), false);

        const QJsonObject large = runsOf(rig, big).value(0);
        QCOMPARE(str(large, sk::Output), QString(65536, QLatin1Char('x')));
        QCOMPARE(large.value(sk::OutputTruncated).toBool(), true);
        QCOMPARE(large.value(sk::Failed).toBool(true), false);
    }

    // timeoutSeconds 1: SIGTERM to the group; one that ignores it gets SIGKILL 2 s later. The run
    // is recorded timedOut, and nothing of its group is left.
    void timeoutEndsTheGroup_data() {
        QTest::addColumn<QString>("script");
        QTest::addColumn<int>("signal");
        QTest::addColumn<int>("minMs");
        QTest::newRow("ends on SIGTERM")
            << QStringLiteral("echo $$ > \"$1\"; sleep 30 & wait") << int(SIGTERM) << 1000;
        QTest::newRow("ignores SIGTERM")
            << QStringLiteral("trap '' TERM; echo $$ > \"$1\"; sleep 30 & wait") << int(SIGKILL)
            << 3000;
    }
    void timeoutEndsTheGroup() {
        QFETCH(QString, script);
        QFETCH(int, signal);
        QFETCH(int, minMs);
        AgentRig &rig = *m_shared;
        const QString pidFile = rig.svc->workDir() + QStringLiteral("/pid-%1").arg(signal);
        const QString id =
            str(addHook(rig, hookOn(QStringLiteral("agent_created"), QStringLiteral("slow"),
                                    sh(script, {pidFile}), {{sk::TimeoutSeconds, 1}})),
                k::Id);
        // The rig is shared: a failing row must not leave its hook to the next ones.
        const auto removeHook = qScopeGuard([&rig, &id] { rig.http.del(hookUrl(rig, id)); });
        QVERIFY(rig.createAgent(QStringLiteral("t-%1").arg(signal)).status == 201);
        // The shell creates the file before echo writes into it: wait for its content.
        QTRY_VERIFY_WITH_TIMEOUT(!readAll(pidFile).trimmed().isEmpty(), 5000);
        const qint64 pgid = readAll(pidFile).trimmed().toLongLong();
        QVERIFY(pgid > 1);
        // That the group lived until the timeout is the run's duration below (checking it alive
        // here races the 1 s timeout on a loaded machine).
        const QJsonObject run = awaitRun(rig, id, 10000);
        QVERIFY(!run.isEmpty());
        QCOMPARE(run.value(sk::TimedOut).toBool(), true);
        QCOMPARE(run.value(sk::Failed).toBool(), true);
        QVERIFY(run.value(sk::ExitCode).isNull());
        QCOMPARE(run.value(sk::Signal).toInt(), signal);
        QVERIFY2(run.value(sk::DurationMs).toInteger() >= minMs, json(run).constData());
        QVERIFY2(run.value(sk::DurationMs).toInteger() < minMs + 5000, json(run).constData());
        QTRY_VERIFY_WITH_TIMEOUT(!groupAlive(pgid), 5000);
    }

    // Six slow hooks on one event: never more than four at once, all six run. Each sleeps long
    // enough that the two queued ones are still queued when the test looks, even under ASan.
    void atMostFourAtOnce() {
        AgentRig &rig = *m_shared;
        HookRunner &runner = rig.svc->app().hookRunner();
        int most = 0;
        int started = 0;
        QObject context;
        QStringList ids;
        // Only this row's hooks count: a run an earlier row left behind may still be ending.
        connect(&runner, &HookRunner::runStarted, &context, [&](const QString &hookId) {
            if (!ids.contains(hookId))
                return;
            ++started;
            most = std::max(most, runner.runningCount());
        });
        for (int i = 0; i < 6; ++i)
            ids << str(addHook(rig, hookOn(QStringLiteral("agent_created"),
                                           QStringLiteral("slow %1").arg(i),
                                           {QStringLiteral("sleep"), QStringLiteral("1.5")})),
                       k::Id);
        const auto removeHooks = qScopeGuard([&rig, &ids] {
            for (const QString &id : std::as_const(ids))
                rig.http.del(hookUrl(rig, id));
        });
        QVERIFY(rig.createAgent(QStringLiteral("busy")).status == 201);
        QTRY_COMPARE_WITH_TIMEOUT(started, 4, 5000);
        QCOMPARE(runner.queuedCount(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(
            std::all_of(ids.cbegin(), ids.cend(),
                        [&](const QString &id) { return runsOf(rig, id).size() == 1; }),
            10000);
        QCOMPARE(started, 6);
        QCOMPARE(most, 4);
        for (const QString &id : ids)
            QCOMPARE(runsOf(rig, id).value(0).value(sk::Failed).toBool(true), false);
    }

    // The newest 200 runs per hook are kept, newest first; lastRun and runs survive a restart;
    // deleting the hook deletes them.
    void newest200RunsKept() {
        AgentRig rig;
        QVERIFY(rig.start());
        const QString id =
            str(addHook(rig, hookOn(QStringLiteral("budget_exceeded"), QStringLiteral("bounded"),
                                    {QStringLiteral("true")})),
                k::Id);
        HookStore &store = rig.svc->app().hookStore();
        for (int i = 0; i < 205; ++i) {
            QVERIFY(!store.recordRun(QJsonObject{{k::Id, QStringLiteral("run-%1").arg(i)},
                                                 {sk::HookId, id},
                                                 {sk::Event, QStringLiteral("budget_exceeded")},
                                                 {sk::ExitCode, 0},
                                                 {sk::Failed, false}}));
        }
        QCOMPARE(store.runCount(id), 200);
        auto check = [&] {
            const QJsonArray runs = rig.http.get(hookUrl(rig, id, QStringLiteral("/runs"))).array();
            QCOMPARE(runs.size(), 200);
            QCOMPARE(str(runs.first().toObject(), k::Id), QStringLiteral("run-204"));
            QCOMPARE(str(runs.last().toObject(), k::Id), QStringLiteral("run-5"));
            QCOMPARE(
                str(rig.http.get(hookUrl(rig, id)).object().value(sk::LastRun).toObject(), k::Id),
                QStringLiteral("run-204"));
        };
        check();
        if (QTest::currentTestFailed())
            return;
        QVERIFY(rig.restartService());
        check();
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(rig.http.del(hookUrl(rig, id)).status, 204);
        QCOMPARE(rig.svc->app().hookStore().runCount(id), 0);
    }
};

QTEST_GUILESS_MAIN(TestHookRuns)
#include "tst_hook_runs.moc"
