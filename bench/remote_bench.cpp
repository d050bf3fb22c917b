// What running an agent on another host over SSH (docs/api.md "Hosts", issue 26) costs against
// the same agent run locally by the same flotillad. The real flotillad binary runs both real CLIs
// against the loopback mocks (they answer at once: the figures are the CLIs', ssh's and the
// service's own overhead, not a model's); the host is tests/support/RemoteHost.h: a real sshd on
// 127.0.0.2 serving a Unix account of its own with hard-link copies of the pinned CLIs (needs
// root). flotillad reaches it through its ControlMaster; a remote agent is one session over it.
//
//   first delta: ms from before the POST /message to the agent's first `output` chunk on a
//                WebSocket client. cold: a new agent's first message (its CLI starts; there: a
//                session over the link, the shipped files, the wrapper, then the CLI); warm: the
//                next --warm messages, its process running (what the link adds to every turn);
//                after stop: a stop ended the idle agent's process, one more message (the CLI
//                starts again and resumes the session). Local and remote agents alternate, so
//                that other work on the machine hits both; each pair gives paired differences
//                (remote - local). Every agent is deleted, its processes gone here and there,
//                before the next starts; a first pair per provider warms the caches, not counted.
//                flotillad's CPU time in each cold turn and per warm turn, for both.
//   the link:    one line to `cat` there and back over the ControlMaster, against `cat` here;
//                a session that runs `sh -c true` there, against the same here.
//   memory:      a fresh flotillad with the host connected and no agent, then --agents agents,
//                all local or all remote, each after one turn (idle, process running): what
//                flotillad's own VmRSS added per agent, its ssh session clients per agent (VmRSS
//                and PSS), the local agents' trees, the account's processes there per agent, and
//                the ControlMaster (one per host).
//
// The CLIs there read their own settings: flotillad sends only the environment it adds to its
// own, and here the mocks' variables are its own. ~/.claude/settings.json `env` points Claude
// Code at its mock, ~/.codex/config.toml Codex (a bearer token in place of the env key).
//
//   bench_remote [--runs 7] [--warm 3] [--agents 4] [--memory-runs 3] [--out FILE.json]
//                [--keep-ca-env]

#include "BenchSupport.h"
#include "RemoteBenchService.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <memory>
#include <pwd.h>

using namespace flotilla;
using namespace flotilla::bench;
using namespace flotilla::test;

namespace {

// Wider labels and two decimals: the link's own figures are fractions of a millisecond.
QJsonObject row(const QString &label, const QList<double> &v, const char *unit) {
    return bench::report(label, v, unit, 44, 2);
}

// Both places and their paired differences (remote - local), printed and as JSON.
QJsonObject compare(const char *what, const QList<double> &local, const QList<double> &remote) {
    QList<double> paired;
    for (int i = 0; i < qMin(local.size(), remote.size()); ++i)
        paired.append(remote.at(i) - local.at(i));
    const QString name = QString::fromLatin1(what);
    return {{QStringLiteral("local"), row(name + QStringLiteral(", local"), local, "ms")},
            {QStringLiteral("remote"), row(name + QStringLiteral(", remote"), remote, "ms")},
            {QStringLiteral("pairedDifference"),
             row(name + QStringLiteral(", remote - local"), paired, "ms")}};
}

// Round trips of one short line through `program` (a `cat`), ms; the first is not counted (a
// session opens). Empty on failure.
QList<double> roundTrips(const QString &program, const QStringList &args, int n = 500) {
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return {};
    QList<double> out;
    QElapsedTimer t;
    for (int i = -1; i < n; ++i) {
        t.start();
        p.write("ping\n");
        while (!p.canReadLine()) {
            if (!p.waitForReadyRead(10000)) {
                std::fprintf(stderr, "%s: no echo: %s\n", qPrintable(program),
                             p.readAllStandardError().constData());
                return {};
            }
        }
        p.readLine();
        if (i >= 0)
            out.append(double(t.nsecsElapsed()) / 1e6);
    }
    p.closeWriteChannel();
    p.waitForFinished(5000);
    return out;
}

// Wall time of `program` run to its end, ms, `n` times after one not counted. Empty on failure.
QList<double> wallTimes(const QString &program, const QStringList &args, int n = 50) {
    QList<double> out;
    QElapsedTimer t;
    for (int i = -1; i < n; ++i) {
        QProcess p;
        t.start();
        p.start(program, args);
        if (!p.waitForFinished(10000) || p.exitCode() != 0) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(program),
                         p.readAllStandardError().constData());
            return {};
        }
        if (i >= 0)
            out.append(double(t.nsecsElapsed()) / 1e6);
    }
    return out;
}

// The memory figures of one sample: before (host connected, no agent) and after (`n` agents).
struct Figure {
    const char *key, *label;
    double (*of)(const Memory &before, const Memory &after, int n);
};
const Figure kFigures[] = {
    {"serviceAloneMiB", "flotillad, host connected",
     [](const Memory &b, const Memory &, int) { return b.service; }},
    {"servicePerAgentMiB", "flotillad added per agent",
     [](const Memory &b, const Memory &a, int n) { return (a.service - b.service) / n; }},
    {"sshSessionPerAgentMiB", "ssh session client per agent",
     [](const Memory &, const Memory &a, int n) { return a.sessions / n; }},
    {"sshSessionPerAgentPssMiB", "  its PSS",
     [](const Memory &, const Memory &a, int n) { return a.sessionsPss / n; }},
    {"localTreePerAgentMiB", "local CLI tree per agent",
     [](const Memory &, const Memory &a, int n) { return a.agents / n; }},
    {"remoteSidePerAgentMiB", "there, per agent",
     [](const Memory &b, const Memory &a, int n) { return (a.there - b.there) / n; }},
    {"controlMasterMiB", "ssh ControlMaster",
     [](const Memory &, const Memory &a, int) { return a.master; }},
    {"controlMasterPssMiB", "  its PSS",
     [](const Memory &, const Memory &a, int) { return a.masterPss; }},
};

struct Latency {
    QList<double> cold, warm;       // warm: every warm turn of every agent, in order
    QList<double> resumed;          // after a stop ended the process
    QList<double> coldCpu, warmCpu; // flotillad's CPU time in a cold turn, per warm turn, ms
};

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption runsOpt(QStringLiteral("runs"), QStringLiteral("Pairs per provider."),
                                     QStringLiteral("n"), QStringLiteral("7"));
    const QCommandLineOption warmOpt(QStringLiteral("warm"),
                                     QStringLiteral("Warm turns per agent."), QStringLiteral("n"),
                                     QStringLiteral("3"));
    const QCommandLineOption agentsOpt(QStringLiteral("agents"),
                                       QStringLiteral("Agents per memory sample."),
                                       QStringLiteral("n"), QStringLiteral("4"));
    const QCommandLineOption memRunsOpt(QStringLiteral("memory-runs"),
                                        QStringLiteral("Memory samples per provider and place."),
                                        QStringLiteral("n"), QStringLiteral("3"));
    const QCommandLineOption outOpt(QStringLiteral("out"), QStringLiteral("JSON result file."),
                                    QStringLiteral("path"));
    const QCommandLineOption keepCaOpt(
        QStringLiteral("keep-ca-env"),
        QStringLiteral("Leave NODE_EXTRA_CA_CERTS and SSL_CERT_FILE to the local CLIs."));
    p.addOptions({runsOpt, warmOpt, agentsOpt, memRunsOpt, outOpt, keepCaOpt});
    p.process(app);
    const int runs = qMax(1, p.value(runsOpt).toInt());
    const int warm = qMax(1, p.value(warmOpt).toInt());
    const int agents = qMax(1, p.value(agentsOpt).toInt());
    const int memoryRuns = qMax(0, p.value(memRunsOpt).toInt());

    QTemporaryDir tmp;
    MockAnthropic anthropic;
    MockOpenAI openai;
    RemoteHost remote;
    if (!tmp.isValid() || !anthropic.start() || !openai.start())
        return 2;
    if (const QString error = remote.start(); !error.isEmpty()) {
        std::fprintf(stderr, "remote host: %s\n", qPrintable(error));
        return 2;
    }
    const passwd *pw = ::getpwnam(remote.user().toLocal8Bit().constData());
    const QJsonObject claudeSettings{
        {QStringLiteral("env"),
         QJsonObject{
             {QStringLiteral("ANTHROPIC_BASE_URL"), anthropic.baseUrl().toString()},
             {QStringLiteral("ANTHROPIC_API_KEY"), QStringLiteral("sk-test")},
             {QStringLiteral("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"), QStringLiteral("1")},
             {QStringLiteral("NO_PROXY"), QStringLiteral("127.0.0.1,localhost")}}}};
    const QString codexConfig =
        openai.configToml().replace(QStringLiteral("env_key = \"OPENAI_API_KEY\""),
                                    QStringLiteral("experimental_bearer_token = \"sk-test\""));
    if (!pw ||
        !remote.writeHomeFile(QStringLiteral(".claude/settings.json"),
                              QJsonDocument(claudeSettings).toJson()) ||
        !remote.writeHomeFile(QStringLiteral(".codex/config.toml"), codexConfig.toUtf8()))
        return 2;
    const uint uid = pw->pw_uid;

    const QString home = tmp.path() + QStringLiteral("/home");
    QDir().mkpath(home);
    QProcessEnvironment env = anthropic.claudeEnvironment(home);
    const QProcessEnvironment codexEnv = openai.codexEnvironment(home);
    for (const QString &key : codexEnv.keys())
        env.insert(key, codexEnv.value(key));
    env.insert(QStringLiteral("FLOTILLA_CLAUDE_BIN"), MockAnthropic::claudeBinary());
    env.insert(QStringLiteral("FLOTILLA_CODEX_BIN"), MockOpenAI::codexBinary());
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    // sshd gives the CLIs there a minimal environment; a machine that sets an extra CA bundle
    // for every process would give it only to the local ones, and node reads it at each start
    // (~65 ms for this machine's 220 KB bundle): the comparison would be of environments.
    if (!p.isSet(keepCaOpt)) {
        env.remove(QStringLiteral("NODE_EXTRA_CA_CERTS"));
        env.remove(QStringLiteral("SSL_CERT_FILE"));
    }
    // A host's link needs the service's token (docs/security.md "Hosts").
    const QByteArray token =
        QByteArray::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, '0');
    env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(token));
    int services = 0;
    const auto newService = [&]() -> std::unique_ptr<RemoteBenchService> {
        auto s = std::make_unique<RemoteBenchService>(anthropic, openai, remote, uid, token);
        if (!s->start(tmp.path() + QStringLiteral("/data-%1").arg(++services), env))
            return nullptr;
        return s;
    };

    const QByteArray loadBefore = loadavg();
    std::printf("load before: %s\n", loadBefore.constData());
    QJsonObject result{
        {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("runs"), runs},
        {QStringLiteral("warmTurnsPerAgent"), warm},
        {QStringLiteral("keepCaEnv"), p.isSet(keepCaOpt)},
        {QStringLiteral("loadBefore"), QString::fromLatin1(loadBefore)}};
    const QStringList providers{QStringLiteral("claude"), QStringLiteral("codex")};

    // First delta: one service, local and remote agents alternating.
    std::unique_ptr<RemoteBenchService> svc = newService();
    if (!svc)
        return 2;
    // The link alone: a line to `cat` there and back through the ControlMaster, as a session's
    // stdin and stdout carry a message and its deltas, against `cat` here; and a session that
    // runs `sh -c true` there (what a start adds before the wrapper), against the same here.
    QStringList session{QStringLiteral("-F"), remote.sshConfig(), QStringLiteral("-S"),
                        svc->controlPath()};
    session << QStringLiteral("-o ControlMaster=no -o BatchMode=yes -p").split(QLatin1Char(' '))
            << QString::number(remote.port())
            << remote.user() + QLatin1Char('@') + QLatin1String(RemoteHost::kAddress)
            << QStringLiteral("--");
    const QList<double> echoThere =
        roundTrips(QStringLiteral("ssh"), session + QStringList{QStringLiteral("cat")});
    const QList<double> echoHere = roundTrips(QStringLiteral("cat"), {});
    const QStringList shTrue{QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("true")};
    const QList<double> startThere = wallTimes(QStringLiteral("ssh"), session + shTrue);
    const QList<double> startHere = wallTimes(shTrue.first(), shTrue.mid(1));
    if (echoThere.isEmpty() || echoHere.isEmpty() || startThere.isEmpty() || startHere.isEmpty())
        return 2;
    std::printf("the link alone (min / median / max of %lld echoes, %lld starts)\n",
                qlonglong(echoHere.size()), qlonglong(startHere.size()));
    result.insert(QStringLiteral("sessionStartMs"), compare("sh -c true", startHere, startThere));
    result.insert(QStringLiteral("lineEchoMs"), compare("line echo", echoHere, echoThere));
    for (const QString &provider : providers) {
        Latency local, there;
        for (int r = -1; r < runs; ++r) { // -1: the warm-up pair
            for (const bool isRemote : {false, true}) {
                const QString id = svc->create(provider, isRemote);
                double ms = 0;
                double cpu = cpuMs(svc->pid());
                if (id.isEmpty() || !svc->turn(id, provider, ms))
                    return 2;
                Latency &into = isRemote ? there : local;
                if (r >= 0) {
                    into.cold.append(ms);
                    into.coldCpu.append(cpuMs(svc->pid()) - cpu);
                }
                cpu = cpuMs(svc->pid());
                for (int w = 0; w < warm; ++w) {
                    if (!svc->turn(id, provider, ms))
                        return 2;
                    if (r >= 0)
                        into.warm.append(ms);
                }
                if (r >= 0)
                    into.warmCpu.append((cpuMs(svc->pid()) - cpu) / warm);
                if (!svc->stop(id) || !svc->turn(id, provider, ms))
                    return 2;
                if (r >= 0)
                    into.resumed.append(ms);
                if (!svc->remove(id))
                    return 2;
            }
        }
        std::printf("%s first delta (min / median / max of %d agents, %d warm turns each)\n",
                    qPrintable(provider), runs, warm);
        result.insert(
            provider,
            QJsonObject{
                {QStringLiteral("coldMs"), compare("cold", local.cold, there.cold)},
                {QStringLiteral("warmMs"), compare("warm", local.warm, there.warm)},
                {QStringLiteral("resumedMs"), compare("after stop", local.resumed, there.resumed)},
                {QStringLiteral("serviceCpuColdTurnMs"),
                 compare("flotillad CPU, cold turn", local.coldCpu, there.coldCpu)},
                {QStringLiteral("serviceCpuPerWarmTurnMs"),
                 compare("flotillad CPU per warm turn", local.warmCpu, there.warmCpu)}});
    }
    svc->stop();
    svc.reset();

    // Memory: a fresh service per sample, `agents` agents all here or all there.
    QJsonObject memory{{QStringLiteral("agents"), agents}, {QStringLiteral("runs"), memoryRuns}};
    for (const QString &provider : providers) {
        QJsonObject perProvider;
        for (const bool isRemote : {false, true}) {
            QList<QList<double>> values(std::size(kFigures));
            for (int r = 0; r < memoryRuns; ++r) {
                std::unique_ptr<RemoteBenchService> s = newService();
                if (!s)
                    return 2;
                const Memory before = s->memory();
                for (int a = 0; a < agents; ++a) {
                    const QString id = s->create(provider, isRemote);
                    double ms = 0;
                    if (id.isEmpty() || !s->turn(id, provider, ms))
                        return 2;
                }
                QTest::qWait(1000); // the turns' buffers and timers settle, as bench_idle
                const Memory after = s->memory();
                for (size_t i = 0; i < std::size(kFigures); ++i)
                    values[i].append(kFigures[i].of(before, after, agents));
                s->stop();
            }
            const QString where = isRemote ? QStringLiteral("remote") : QStringLiteral("local");
            std::printf("%s memory, %d %s agents (min / median / max of %d)\n",
                        qPrintable(provider), agents, qPrintable(where), memoryRuns);
            QJsonObject figures;
            for (size_t i = 0; i < std::size(kFigures); ++i)
                figures.insert(QLatin1String(kFigures[i].key),
                               row(QLatin1String(kFigures[i].label), values.at(i), "MiB"));
            perProvider.insert(where, figures);
        }
        memory.insert(provider, perProvider);
    }
    result.insert(QStringLiteral("memory"), memory);

    const QByteArray loadAfter = loadavg();
    std::printf("load after: %s\n", loadAfter.constData());
    result.insert(QStringLiteral("loadAfter"), QString::fromLatin1(loadAfter));
    if (p.isSet(outOpt)) {
        QFile f(p.value(outOpt));
        if (f.open(QIODevice::WriteOnly))
            f.write(QJsonDocument(result).toJson());
    }
    return 0;
}
