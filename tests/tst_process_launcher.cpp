// The launcher seam (base/Sandbox.h, base/ChildProcess.h): bwrap's argv and its mount order, the
// plan's refusals, the start-up probe, and real bubblewrap around real bash: a read-only file
// system, a writable cwd, hidden paths, a private /tmp, no capabilities, SIGTERM reaching the
// command inside and the exit read back, as root and as an unprivileged user.

#include "base/ChildProcess.h"
#include "base/Sandbox.h"
#include "protocol/SandboxNames.h"
#include "support/FileProbe.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTest>

#include <csignal>
#include <unistd.h>

using namespace flotilla;
namespace sk = flotilla::wire::sandbox::key;
namespace scode = flotilla::wire::sandbox::code;

namespace {

// An argv written as one line (no path here has a space).
QStringList words(const QString &line) {
    return line.split(QLatin1Char(' '));
}

const QStringList kBase = words(QStringLiteral(
    "--unshare-user --unshare-pid --unshare-ipc --die-with-parent --new-session --cap-drop ALL "
    "--ro-bind / / --dev /dev --proc /proc --tmpfs /tmp --tmpfs /dev/shm"));
constexpr uid_t kNobody = 65534;
constexpr int kTimeoutMs = 20000;

bool makeDir(const QString &path, QFile::Permissions permissions) {
    return QDir().mkpath(path) && QFile::setPermissions(path, permissions);
}

const QFile::Permissions kDir0755 = QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner |
                                    QFile::ReadGroup | QFile::ExeGroup | QFile::ReadOther |
                                    QFile::ExeOther;

bool writeFile(const QString &path, const QByteArray &content) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(content) == content.size();
}

QByteArray statusOf(qint64 pid) {
    QFile status(QStringLiteral("/proc/%1/status").arg(pid));
    return status.open(QIODevice::ReadOnly) ? status.readAll() : QByteArray();
}

// Gone, or a zombie nobody reaped yet: either way nothing runs.
bool isGone(qint64 pid) {
    const QByteArray status = statusOf(pid);
    return status.isEmpty() || status.contains("State:\tZ");
}

// What the sandbox's outer bwrap started: the host pids in /proc/<pid>/task/<pid>/children.
QList<qint64> childrenOf(qint64 pid) {
    QFile children(QStringLiteral("/proc/%1/task/%1/children").arg(pid));
    QList<qint64> out;
    if (children.open(QIODevice::ReadOnly))
        for (const QByteArray &child : children.readAll().simplified().split(' '))
            out.append(child.toLongLong());
    return out;
}

SandboxSupport usableSupport() {
    SandboxSupport yes;
    yes.usable = true;
    yes.bwrap = QStringLiteral("/usr/bin/bwrap");
    return yes;
}

struct Ran {
    ChildExit exit;
    QByteArray out;
    QByteArray err;
};

} // namespace

class TestProcessLauncher final : public QObject {
    Q_OBJECT

    // Outside /tmp: a sandbox's /tmp is its own empty tmpfs, which would make every "hidden"
    // row pass without hiding anything.
    QTemporaryDir m_root{QStringLiteral("/var/tmp/flotilla-launcher-XXXXXX")};
    SandboxSupport m_support;
    std::unique_ptr<ProcessLauncher> m_launcher;

    QString path(const QString &name) const { return m_root.filePath(name); }
    QString emptyFile() const { return path(QStringLiteral("sandbox/empty")); }

    ProcessSpec bashSpec(const QString &script, const QString &cwd) const {
        ProcessSpec spec;
        spec.program = QStringLiteral("bash");
        spec.arguments = {QStringLiteral("-c"), script};
        spec.cwd = cwd;
        spec.environment = QProcessEnvironment::systemEnvironment();
        spec.sandbox.enabled = true;
        spec.sandbox.writable = {cwd};
        return spec;
    }

    // `asUser`: run the whole plan through `runuser -u <user> --` (the test runs as root).
    static void start(QProcess &process, const LaunchPlan &plan, const QString &asUser = {}) {
        applyLaunchPlan(process, plan);
        if (!asUser.isEmpty()) {
            process.setProgram(QStringLiteral("runuser"));
            process.setArguments(
                QStringList{QStringLiteral("-u"), asUser, QStringLiteral("--"), plan.program} +
                plan.arguments);
        }
        process.start();
    }

    static Ran run(const LaunchPlan &plan, const QString &asUser = {}) {
        QProcess p;
        start(p, plan, asUser);
        Ran ran;
        if (!p.waitForFinished(kTimeoutMs)) {
            p.kill();
            p.waitForFinished();
            ran.err = "did not finish: " + p.errorString().toUtf8();
            return ran;
        }
        ran.exit = decodeExit(plan.sandboxed, p.exitCode(), p.exitStatus());
        ran.out = p.readAllStandardOutput();
        ran.err = p.readAllStandardError();
        return ran;
    }

    Ran runSandboxed(const QString &script, const QString &cwd, const QStringList &hidden = {},
                     const QString &asUser = {}) {
        ProcessSpec spec = bashSpec(script, cwd);
        spec.sandbox.hidden = hidden;
        const Result<LaunchPlan> plan = m_launcher->plan(spec);
        if (!plan)
            return Ran{{}, {}, plan.error().message.toUtf8()};
        return run(*plan, asUser);
    }

    // Starts `script` sandboxed and waits until it printed "ready".
    bool startReady(QProcess &process, const QString &script) {
        const Result<LaunchPlan> plan = m_launcher->plan(bashSpec(script, m_root.path()));
        if (!plan)
            return false;
        start(process, *plan);
        QByteArray out;
        while (!out.contains("ready") && process.waitForReadyRead(kTimeoutMs))
            out += process.readAllStandardOutput();
        return out.contains("ready");
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_root.isValid());
        // Traversable by nobody (the unprivileged rows), as the launcher's empty file must be.
        QVERIFY(QFile::setPermissions(m_root.path(), kDir0755));
        QVERIFY(makeDir(path(QStringLiteral("sandbox")), kDir0755));
        m_support = probeSandbox(QStringLiteral("bwrap"));
        m_launcher = std::make_unique<ProcessLauncher>(m_support, emptyFile());
    }

    // --- bwrap's argv ---------------------------------------------------------------------------

    void baseArgumentsComeFirst() {
        const QStringList args = bwrapArguments(SandboxSpec{}, QStringLiteral("/w"), emptyFile());
        QCOMPARE(args, kBase + words(QStringLiteral("--chdir /w")));
        QVERIFY(args.join(QLatin1Char(' ')).contains(QLatin1String("--cap-drop ALL")));
    }

    // Shallow first, whatever the kinds: a writable dir in a hidden one and a read-only file in
    // that; a read-only .git in the writable cwd, a writable dir in that, a hidden one in that.
    void entriesAreMountedParentFirst() {
        const QString hidden = path(QStringLiteral("order/hidden"));
        const QString work = hidden + QStringLiteral("/work");
        const QString config = work + QStringLiteral("/config");
        const QString cwd = path(QStringLiteral("nest"));
        const QString git = cwd + QStringLiteral("/.git");
        const QString refs = git + QStringLiteral("/refs");
        const QString mine = refs + QStringLiteral("/mine");
        QVERIFY(QDir().mkpath(work));
        QVERIFY(QDir().mkpath(mine));
        QVERIFY(writeFile(config, "x"));
        SandboxSpec spec;
        spec.readOnly = {config, git};
        spec.writable = {refs, work, cwd};
        spec.hidden = {mine, hidden};
        QCOMPARE(bwrapArguments(spec, cwd, emptyFile()).mid(kBase.size()),
                 words(QStringLiteral("--bind %1 %1 --tmpfs %2 --ro-bind %3 %3 --bind %4 %4 "
                                      "--bind %5 %5 --tmpfs %6 --ro-bind %7 %7 --chdir %1")
                           .arg(cwd, hidden, git, refs, work, mine, config)));
    }

    // Equal depth: hidden, writable, read-only; the same kind keeps the order given.
    void equalDepthOrdersByKind() {
        const QString dir = path(QStringLiteral("ties"));
        QVERIFY(QDir().mkpath(dir + QStringLiteral("/c")));
        SandboxSpec spec;
        spec.readOnly = {dir + QStringLiteral("/a")};
        spec.writable = {dir + QStringLiteral("/b2"), dir + QStringLiteral("/b1")};
        spec.hidden = {dir + QStringLiteral("/c")};
        const QStringList args = bwrapArguments(spec, QStringLiteral("/"), emptyFile());
        QCOMPARE(args.mid(kBase.size()),
                 words(QStringLiteral("--tmpfs %1/c --bind %1/b2 %1/b2 --bind %1/b1 %1/b1 "
                                      "--ro-bind %1/a %1/a --chdir /")
                           .arg(dir)));
    }

    // A missing hidden path is left out; a hidden file gets the launcher's empty file over it.
    void hiddenFilesAndMissingPaths() {
        const QString file = path(QStringLiteral("hidden-file"));
        QVERIFY(writeFile(file, "secret"));
        SandboxSpec spec;
        spec.hidden = {path(QStringLiteral("no-such-dir")), file};
        const QStringList args = bwrapArguments(spec, QStringLiteral("/"), emptyFile());
        QCOMPARE(args.mid(kBase.size()),
                 words(QStringLiteral("--ro-bind %1 %2 --chdir /").arg(emptyFile(), file)));
        QVERIFY(QFileInfo(emptyFile()).isFile());
        QCOMPARE(QFileInfo(emptyFile()).size(), 0);
        QCOMPARE(test::modeOf(emptyFile()), 0444);
    }

    void environmentIsSetThenUnset() {
        SandboxSpec spec;
        spec.setEnvironment = {{QStringLiteral("TMPDIR"), QStringLiteral("/tmp")},
                               {QStringLiteral("A_FIRST"), QStringLiteral("1")}};
        spec.unsetEnvironment = {QStringLiteral("SSH_AUTH_SOCK")};
        const QStringList args = bwrapArguments(spec, QStringLiteral("/w"), emptyFile());
        QCOMPARE(args.mid(kBase.size()),
                 words(QStringLiteral("--chdir /w --setenv A_FIRST 1 --setenv TMPDIR /tmp "
                                      "--unsetenv SSH_AUTH_SOCK")));
    }

    // --- plan -----------------------------------------------------------------------------------

    void decodingExits() {
        QCOMPARE(decodeExit(false, 137, QProcess::NormalExit).exitCode, std::optional<int>(137));
        QCOMPARE(decodeExit(true, 137, QProcess::NormalExit).signal, std::optional<int>(9));
        QCOMPARE(decodeExit(true, 128, QProcess::NormalExit).exitCode, std::optional<int>(128));
        QCOMPARE(decodeExit(true, 9, QProcess::CrashExit).signal, std::optional<int>(9));
    }

    void planWithoutSandboxIsTheSpec() {
        ProcessSpec spec = bashSpec(QStringLiteral("true"), m_root.path());
        spec.sandbox.enabled = false;
        const ProcessLauncher unusable(SandboxSupport{}, QString());
        const Result<LaunchPlan> plan = unusable.plan(spec);
        QVERIFY(plan);
        QCOMPARE(plan->program, spec.program);
        QCOMPARE(plan->displayProgram, spec.program);
        QCOMPARE(plan->arguments, spec.arguments);
        QCOMPARE(plan->cwd, spec.cwd);
        QCOMPARE(plan->environment, spec.environment);
        QVERIFY(!plan->sandboxed);
    }

    void planWhenTheProbeSaidNoIsUnavailable() {
        SandboxSupport no;
        no.reason = QStringLiteral("bwrap: No permissions to create new namespace: enable them");
        const ProcessLauncher launcher(no, QString());
        const Result<LaunchPlan> plan =
            launcher.plan(bashSpec(QStringLiteral("true"), QStringLiteral("/")));
        QVERIFY(!plan);
        QCOMPARE(plan.error().kind, ErrorKind::Unavailable);
        QCOMPARE(plan.error().code, scode::SandboxUnavailable);
        QVERIFY2(plan.error().message.contains(no.reason), qPrintable(plan.error().message));
    }

    void planBuildsTheBwrapCommand() {
        const SandboxSupport yes = usableSupport();
        const ProcessLauncher launcher(yes, emptyFile());
        const ProcessSpec spec = bashSpec(QStringLiteral("echo hi"), m_root.path());
        const Result<LaunchPlan> plan = launcher.plan(spec);
        QVERIFY2(plan, qPrintable(plan.error().message));
        QVERIFY(plan->sandboxed);
        QCOMPARE(plan->program, yes.bwrap);
        QCOMPARE(plan->displayProgram, QStringLiteral("bash"));
        QCOMPARE(plan->cwd, spec.cwd);
        const QStringList expected =
            bwrapArguments(spec.sandbox, spec.cwd, emptyFile()) +
            QStringList{QStringLiteral("--"), QStandardPaths::findExecutable(spec.program)} +
            spec.arguments;
        QCOMPARE(plan->arguments, expected);
        QVERIFY(QFileInfo(expected.at(expected.size() - 3)).isAbsolute());
    }

    void planRefusesWhatBwrapCannotHonour_data() {
        QTest::addColumn<QString>("cwd");
        QTest::addColumn<QStringList>("writable");
        QTest::addColumn<QStringList>("readOnly");
        QTest::addColumn<QStringList>("hidden");
        QTest::addColumn<bool>("refused");
        const QString secret = path(QStringLiteral("refuse/secret"));
        const QString inside = secret + QStringLiteral("/work");
        QVERIFY(QDir().mkpath(inside));
        const QString missing = path(QStringLiteral("refuse/missing"));
        QTest::newRow("missing writable")
            << inside << QStringList{missing} << QStringList{} << QStringList{} << true;
        QTest::newRow("missing read-only")
            << inside << QStringList{} << QStringList{missing} << QStringList{} << true;
        QTest::newRow("missing cwd")
            << missing << QStringList{} << QStringList{} << QStringList{} << true;
        QTest::newRow("relative cwd")
            << QStringLiteral("refuse") << QStringList{} << QStringList{} << QStringList{} << true;
        QTest::newRow("cwd inside hidden")
            << inside << QStringList{} << QStringList{} << QStringList{secret} << true;
        QTest::newRow("cwd is hidden")
            << secret << QStringList{} << QStringList{} << QStringList{secret} << true;
        QTest::newRow("cwd bound above the hidden one")
            << inside << QStringList{path(QStringLiteral("refuse"))} << QStringList{}
            << QStringList{secret} << true;
        QTest::newRow("cwd bound back inside hidden")
            << inside << QStringList{inside} << QStringList{} << QStringList{secret} << false;
        QTest::newRow("cwd read-only inside hidden")
            << inside << QStringList{} << QStringList{inside} << QStringList{secret} << false;
    }

    void planRefusesWhatBwrapCannotHonour() {
        QFETCH(QString, cwd);
        QFETCH(QStringList, writable);
        QFETCH(QStringList, readOnly);
        QFETCH(QStringList, hidden);
        QFETCH(bool, refused);
        const ProcessLauncher launcher(usableSupport(), emptyFile());
        ProcessSpec spec = bashSpec(QStringLiteral("true"), cwd);
        spec.sandbox.writable = writable;
        spec.sandbox.readOnly = readOnly;
        spec.sandbox.hidden = hidden;
        const Result<LaunchPlan> plan = launcher.plan(spec);
        QCOMPARE(!plan.ok(), refused);
        if (refused) {
            QCOMPARE(plan.error().kind, ErrorKind::Invalid);
            QCOMPARE(plan.error().code, scode::InvalidSandbox);
        }
    }

    // --- the probe ------------------------------------------------------------------------------

    void probeWithoutBwrapSaysHowToGetIt() {
        const SandboxSupport s = probeSandbox(QStringLiteral("/nonexistent/bwrap"));
        QVERIFY(!s.usable);
        QVERIFY(!s.networkIsolation);
        QVERIFY(s.bwrap.isEmpty());
        QVERIFY2(s.reason.contains(QLatin1String("apt install bubblewrap")), qPrintable(s.reason));
        const QJsonObject json = s.toJson();
        QCOMPARE(json.value(sk::Available).toBool(true), false);
        QCOMPARE(json.value(sk::Reason).toString(), s.reason);
    }

    void probeWithAPathLackingBwrap() {
        QTemporaryDir emptyBin;
        QVERIFY(emptyBin.isValid());
        const QByteArray savedPath = qgetenv("PATH");
        qputenv("PATH", emptyBin.path().toLocal8Bit());
        const SandboxSupport s = probeSandbox(QStringLiteral("bwrap"));
        qputenv("PATH", savedPath);
        QVERIFY(!s.usable);
        QVERIFY2(s.reason.contains(QLatin1String("apt install bubblewrap")), qPrintable(s.reason));
    }

    void sandboxProbeFindsThisMachinesBwrap() {
        QVERIFY(QFileInfo(m_support.bwrap).isAbsolute());
        QVERIFY2(m_support.version.startsWith(QLatin1String("bubblewrap")),
                 qPrintable(m_support.version));
        QVERIFY(m_support.reason.isEmpty());
        const QJsonObject json = m_support.toJson();
        QCOMPARE(json.value(sk::Available).toBool(), true);
        QCOMPARE(json.value(sk::Bwrap).toString(), m_support.bwrap);
        QVERIFY(json.value(sk::Reason).isNull());
        QVERIFY(json.contains(sk::NetworkIsolation));
    }

    // --- real bubblewrap ------------------------------------------------------------------------

    void init() {
        const QByteArray fn = QTest::currentTestFunction();
        if (fn.startsWith("sandbox") && !m_support.usable)
            QSKIP(qPrintable(QStringLiteral("no usable bubblewrap here (%1); CI installs it "
                                            "(scripts/install-deps.sh)")
                                 .arg(m_support.reason)));
    }

    // Read-only, and root inside cannot make it writable again: without --cap-drop ALL it could
    // (remount rw, then write on the host).
    void sandboxFileSystemStaysReadOnly() {
        const QString target = QStringLiteral("/etc/flotilla-sandbox-probe-%1").arg(getpid());
        const auto cleanup = qScopeGuard([&] { QFile::remove(target); }); // if it got through
        const Ran ran = runSandboxed(QStringLiteral("touch %1 && echo written; mount -o "
                                                    "remount,rw,bind / && echo remounted; touch %1")
                                         .arg(target),
                                     m_root.path());
        QCOMPARE(ran.exit.exitCode, std::optional<int>(1));
        QVERIFY2(!ran.out.contains("written") && !ran.out.contains("remounted"),
                 ran.out.constData());
        QCOMPARE(ran.err.count("Read-only file system"), 2);
        QVERIFY(!QFileInfo::exists(target));
    }

    void sandboxCwdIsWritable() {
        const QString cwd = path(QStringLiteral("writable-cwd"));
        QVERIFY(QDir().mkpath(cwd));
        const Ran ran = runSandboxed(QStringLiteral("echo made > made.txt"), cwd);
        QVERIFY2(ran.exit.exitCode == 0, ran.err.constData());
        QFile made(cwd + QStringLiteral("/made.txt"));
        QVERIFY(made.open(QIODevice::ReadOnly));
        QCOMPARE(made.readAll(), QByteArray("made\n"));
    }

    // A hidden directory is empty inside, a hidden file reads empty.
    void sandboxHiddenPathsAreEmpty() {
        const QString dir = path(QStringLiteral("hidden-dir"));
        const QString file = path(QStringLiteral("hidden.env"));
        QVERIFY(QDir().mkpath(dir));
        QVERIFY(writeFile(dir + QStringLiteral("/secret"), "s3cret"));
        QVERIFY(writeFile(file, "TOKEN=s3cret"));
        const Ran ran = runSandboxed(QStringLiteral("ls -A %1 && cat %2").arg(dir, file),
                                     m_root.path(), {dir, file});
        QVERIFY2(ran.exit.exitCode == 0, ran.err.constData());
        QCOMPARE(ran.out, QByteArray());
    }

    void sandboxTmpIsPrivate() {
        QTemporaryFile hostTmp(QStringLiteral("/tmp/flotilla-launcher-XXXXXX"));
        QVERIFY(hostTmp.open());
        const Ran ran = runSandboxed(
            QStringLiteral("test -e '%1' && echo visible || echo private").arg(hostTmp.fileName()),
            m_root.path());
        QCOMPARE(ran.out.trimmed(), QByteArray("private"));
    }

    // SIGTERM reaches the command inside (its trap runs), not only bwrap. The tree: bwrap (our
    // child, leader of its group) -> its only child, the PID namespace's pid 1 (leader of the
    // command's session) -> bash.
    void sandboxTermReachesTheCommand() {
        QProcess p;
        QVERIFY(startReady(
            p, QStringLiteral("trap 'exit 7' TERM; echo ready; while :; do sleep 0.05; done")));
        const QList<qint64> inner = childrenOf(p.processId());
        QCOMPARE(inner.size(), 1);
        // Its pid 1, and the leader of the session the command runs in.
        const QByteArray status = statusOf(inner.first());
        const QByteArray pid = QByteArray::number(inner.first());
        QVERIFY2(status.contains(QByteArray("NSpid:\t" + pid + "\t1\n")), status.constData());
        QVERIFY2(status.contains(QByteArray("NSsid:\t" + pid + "\t1\n")), status.constData());

        signalLaunched(p.processId(), true, SIGTERM);
        QVERIFY(p.waitForFinished(kTimeoutMs));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit); // bwrap itself was not signalled
        const ChildExit exit = decodeExit(true, p.exitCode(), p.exitStatus());
        QCOMPARE(exit.exitCode, std::optional<int>(7));
        QVERIFY(!exit.signal);
    }

    void sandboxCommandKilledBySignalReadsAsTheSignal() {
        const Ran ran = runSandboxed(QStringLiteral("kill -9 $$"), m_root.path());
        QCOMPARE(ran.exit.signal, std::optional<int>(9));
        QVERIFY(!ran.exit.exitCode);
    }

    void sandboxKillEndsEverything() {
        QProcess p;
        QVERIFY(startReady(
            p, QStringLiteral("trap '' TERM; echo ready; while :; do sleep 0.05; done")));
        const QList<qint64> inner = childrenOf(p.processId());
        QCOMPARE(inner.size(), 1);
        signalLaunched(p.processId(), true, SIGKILL);
        QVERIFY(p.waitForFinished(kTimeoutMs));
        QCOMPARE(decodeExit(true, p.exitCode(), p.exitStatus()).signal,
                 std::optional<int>(SIGKILL));
        QTRY_VERIFY_WITH_TIMEOUT(isGone(inner.first()), kTimeoutMs);
    }

    // The core rows again as an unprivileged user (no capabilities to begin with).
    void sandboxAsAnUnprivilegedUser() {
        if (::geteuid() != 0)
            QSKIP("needs root to switch users with runuser; CI runs as root");
        const QString user = QStringLiteral("nobody");
        const QString cwd = path(QStringLiteral("nobody/cwd"));
        const QString outside = path(QStringLiteral("nobody/outside"));
        const QString secret = path(QStringLiteral("nobody/secret"));
        for (const QString &dir : {path(QStringLiteral("nobody")), cwd, outside, secret})
            QVERIFY(makeDir(dir, kDir0755));
        for (const QString &dir : {cwd, outside})
            QCOMPARE(::chown(QFile::encodeName(dir).constData(), kNobody, kNobody), 0);
        QVERIFY(writeFile(secret + QStringLiteral("/secret"), "s3cret"));
        QVERIFY(QFile::setPermissions(secret + QStringLiteral("/secret"),
                                      QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther));

        // Outside the sandbox nobody may write `outside` and read `secret`: what is refused
        // below is the sandbox's doing.
        ProcessSpec hostSpec =
            bashSpec(QStringLiteral("touch '%1/host' && ls -A '%2'").arg(outside, secret), cwd);
        hostSpec.sandbox.enabled = false;
        const Ran host = run(*m_launcher->plan(hostSpec), user);
        QVERIFY2(host.exit.exitCode == 0, host.err.constData());
        QCOMPARE(host.out.trimmed(), QByteArray("secret"));

        const Ran id = runSandboxed(QStringLiteral("id -u"), cwd, {}, user);
        QCOMPARE(id.out.trimmed(), QByteArray::number(kNobody));

        const Ran ro =
            runSandboxed(QStringLiteral("touch '%1/inside'").arg(outside), cwd, {}, user);
        QVERIFY2(ro.err.contains("Read-only file system"), ro.err.constData());
        QVERIFY(!QFileInfo::exists(outside + QStringLiteral("/inside")));

        const Ran rw = runSandboxed(QStringLiteral("echo made > made.txt"), cwd, {}, user);
        QVERIFY2(rw.exit.exitCode == 0, rw.err.constData());
        QVERIFY(QFileInfo::exists(cwd + QStringLiteral("/made.txt")));

        const Ran hidden =
            runSandboxed(QStringLiteral("ls -A '%1'").arg(secret), cwd, {secret}, user);
        QVERIFY2(hidden.exit.exitCode == 0, hidden.err.constData());
        QCOMPARE(hidden.out, QByteArray());
    }
};

QTEST_GUILESS_MAIN(TestProcessLauncher)
#include "tst_process_launcher.moc"
