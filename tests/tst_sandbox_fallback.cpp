// Where the kernel refuses user namespaces (a chroot, many containers, userns off), made real here:
// flotillad runs in a user namespace of its own whose /proc/sys/user/max_user_namespaces is 0, so
// neither bubblewrap nor Codex's own bwrap can create one (the same "Creating new namespace
// failed" a restricted host gives). The start-up probe says so in GET /api/health; a workspace
// sandbox is refused with 503 and the reason; a Codex agent without a sandbox is told that its
// commands will fail (lastError) and, with the agent's consent (sandbox.allowUnconfined), runs
// them without Codex's sandbox instead. The real Codex CLI against MockOpenAI.

#include "support/BossFixtures.h"
#include "support/HttpClient.h"
#include "support/MockOpenAI.h"
#include "support/ScriptedModel.h"
#include "support/ServiceProcess.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace flotilla;
using namespace flotilla::test;

namespace {

// flotillad in a user namespace that may not create further ones.
const QStringList kNoNamespaces{
    QStringLiteral("unshare"),
    QStringLiteral("--user"),
    QStringLiteral("--map-root-user"),
    QStringLiteral("bash"),
    QStringLiteral("-c"),
    QStringLiteral("echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\""),
    QStringLiteral("no-namespaces")};

} // namespace

class TestSandboxFallback final : public QObject {
    Q_OBJECT

    struct Fixture {
        MockOpenAI openai;
        std::unique_ptr<ScriptedModel> model;
        QTemporaryDir tmp{QStringLiteral("/var/tmp/tst_sandbox_fallback-XXXXXX")};
        ServiceProcess svc;
        HttpClient http;
        QString project;

        bool start() {
            if (!openai.start() || !tmp.isValid())
                return false;
            model = scriptedModel(openai);
            const QString home = tmp.path() + QStringLiteral("/home");
            project = tmp.path() + QStringLiteral("/project");
            QDir().mkpath(project);
            QProcessEnvironment env = openai.codexEnvironment(home);
            env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
            env.remove(QStringLiteral("AUTH_TOKEN"));
            env.remove(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT")); // the probe decides
            svc.setWrapper(kNoNamespaces);
            return svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data"),
                              QStringLiteral("--codex-bin"),
                              QStringLiteral(FLOTILLA_TEST_CODEX_BIN)},
                             env, 20000);
        }
        QUrl url(const QString &path) const { return localUrl(svc.port(), path); }
        HttpResponse create(const QString &name, const QJsonObject &extra) {
            QJsonObject body = extra;
            body.insert(QStringLiteral("name"), name);
            body.insert(QStringLiteral("cwd"), project);
            body.insert(QStringLiteral("provider"), QStringLiteral("codex"));
            body.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
            body.insert(QStringLiteral("permissionMode"), QStringLiteral("auto"));
            return http.post(url(QStringLiteral("/api/agents")), body);
        }
        // Sends one message whose turn runs `command`; waits for the turn's end.
        QString lastCall; // the id the command's result carries back to the model
        QJsonObject runCommand(const QString &id, const QString &command) {
            lastCall = model->queueCommand(command);
            model->queueText(QStringLiteral("Done."));
            if (http.post(url(QStringLiteral("/api/agents/%1/message").arg(id)),
                          QJsonObject{{QStringLiteral("message"), QStringLiteral("go")}})
                    .status != 200)
                return {};
            const auto agent = [&] {
                return http.get(url(QStringLiteral("/api/agents/") + id)).object();
            };
            if (!QTest::qWaitFor(
                    [&] {
                        const QJsonObject a = agent();
                        return a.value(QStringLiteral("taskCount")).toInt() >= 1 &&
                               str(a, "status") == QLatin1String("idle");
                    },
                    60000))
                return {};
            return agent();
        }
    };

private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        if (::geteuid() != 0)
            QSKIP("needs root to map a user namespace onto the test's files; CI runs as root");
    }

    void probeSaysWhyAndWorkspaceIsRefused() {
        Fixture f;
        QVERIFY2(f.start(), f.svc.stdErr().constData());
        const QJsonObject sandbox = f.http.get(f.url(QStringLiteral("/api/health")))
                                        .object()
                                        .value(QStringLiteral("sandbox"))
                                        .toObject();
        QCOMPARE(sandbox.value(QStringLiteral("available")).toBool(), false);
        QVERIFY2(str(sandbox, "reason").contains(QStringLiteral("user namespaces are not allowed")),
                 qPrintable(str(sandbox, "reason")));
        QCOMPARE(str(sandbox, "default"), QStringLiteral("off"));
        const HttpResponse r =
            f.create(QStringLiteral("boxed"),
                     {{QStringLiteral("sandbox"),
                       QJsonObject{{QStringLiteral("mode"), QStringLiteral("workspace")}}}});
        QCOMPARE(r.status, 503);
        QCOMPARE(str(r.object(), "code"), QStringLiteral("sandbox_unavailable"));
        QVERIFY(str(r.object(), "error").contains(QStringLiteral("user namespaces")));
        QVERIFY(f.svc.terminate());
    }

    // Without consent Codex keeps its own sandbox, which cannot start: the command fails, and the
    // agent says why. With consent it runs.
    void codexWithoutAndWithConsent() {
        Fixture f;
        QVERIFY2(f.start(), f.svc.stdErr().constData());
        const HttpResponse plain = f.create(QStringLiteral("plain"), {});
        QCOMPARE(plain.status, 201);
        const QJsonObject after =
            f.runCommand(str(plain.object(), "id"), QStringLiteral("touch plain.txt"));
        QVERIFY2(str(after, "lastError").contains(QStringLiteral("allowUnconfined")),
                 qPrintable(str(after, "lastError")));
        // The command ran (its result went back to the model) and failed: Codex's sandbox.
        QVERIFY(f.model->hasCommandResult(f.model->requestCount() - 1, f.lastCall));
        QVERIFY(!QFileInfo::exists(f.project + QStringLiteral("/plain.txt")));

        const HttpResponse consenting =
            f.create(QStringLiteral("consenting"),
                     {{QStringLiteral("sandbox"),
                       QJsonObject{{QStringLiteral("mode"), QStringLiteral("off")},
                                   {QStringLiteral("allowUnconfined"), true}}}});
        QCOMPARE(consenting.status, 201);
        const QJsonObject done =
            f.runCommand(str(consenting.object(), "id"), QStringLiteral("touch consented.txt"));
        QVERIFY2(str(done, "lastError").contains(QStringLiteral("run unconfined")),
                 qPrintable(str(done, "lastError")));
        QTRY_VERIFY_WITH_TIMEOUT(QFileInfo::exists(f.project + QStringLiteral("/consented.txt")),
                                 10000);
        QVERIFY(f.svc.terminate());
    }
};

QTEST_MAIN(TestSandboxFallback)
#include "tst_sandbox_fallback.moc"
