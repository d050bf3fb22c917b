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

#include "BenchSupport.h"
#include "protocol/HostNames.h"
#include "protocol/WireNames.h"
#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/MockOpenAI.h"
#include "support/RemoteHost.h"
#include "support/ServiceProcess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <cstdio>
#include <memory>
#include <pwd.h>

using namespace flotilla;
using namespace flotilla::bench;
using namespace flotilla::test;
namespace hk = flotilla::wire::host::key;

namespace {

const QString kHost = QStringLiteral("box");

// /proc/<pid>/status: what the memory figures need.
struct Proc {
    QByteArray name;
    qint64 ppid = 0;
    uint uid = 0;
    double rssMiB = 0;
};

QHash<qint64, Proc> snapshot() {
    QHash<qint64, Proc> out;
    for (const QString &entry : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool ok = false;
        const qint64 pid = entry.toLongLong(&ok);
        QFile f(QStringLiteral("/proc/%1/status").arg(pid));
        if (!ok || !f.open(QIODevice::ReadOnly))
            continue;
        Proc p;
        for (const QByteArray &line : f.readAll().split('\n')) {
            const QByteArray value = line.mid(line.indexOf(':') + 1).trimmed();
            if (line.startsWith("Name:"))
                p.name = value;
            else if (line.startsWith("PPid:"))
                p.ppid = value.toLongLong();
            else if (line.startsWith("Uid:"))
                p.uid = value.split('\t').value(0).toUInt();
            else if (line.startsWith("VmRSS:"))
                p.rssMiB = value.split(' ').value(0).toDouble() / 1024.0;
        }
        out.insert(pid, p);
    }
    return out;
}

QList<qint64> subtree(const QHash<qint64, Proc> &all, qint64 root) {
    QList<qint64> tree{root};
    for (int i = 0; i < tree.size(); ++i) {
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            if (it->ppid == tree.at(i))
                tree.append(it.key());
        }
    }
    return tree;
}

bool isMaster(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/cmdline").arg(pid));
    return f.open(QIODevice::ReadOnly) && f.readAll().split('\0').contains("ControlMaster=yes");
}

// Proportional set size: RSS with each shared page divided among the processes that map it.
double pssMiB(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/smaps_rollup").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("Pss:"))
            return line.mid(4).trimmed().split(' ').value(0).toDouble() / 1024.0;
    }
    return 0;
}

// One moment of the service's processes, MiB.
struct Memory {
    double service = 0;                    // flotillad itself
    double master = 0;                     // its ssh ControlMaster
    double sessions = 0;                   // its other ssh children: one per remote agent
    double agents = 0;                     // its other children and below: the local agents' CLIs
    double there = 0;                      // every process of the remote account
    double masterPss = 0, sessionsPss = 0; // their share of shared pages: what one more costs
    int sessionCount = 0, thereCount = 0;
};

class Service {
public:
    Service(MockAnthropic &anthropic, MockOpenAI &openai, RemoteHost &remote, uint uid,
            const QByteArray &token)
        : m_token(token)
        , m_http(token)
        , m_anthropic(anthropic)
        , m_openai(openai)
        , m_remote(remote)
        , m_uid(uid) {
        m_clock.start();
        QObject::connect(&m_ws, &QWebSocket::textMessageReceived, [this](const QString &text) {
            const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
            if (m.value(wire::key::Type).toString() != wire::msg::Output)
                return;
            const QJsonObject p = m.value(wire::key::Payload).toObject();
            const QString id = p.value(wire::key::AgentId).toString();
            if (!m_firstDelta.contains(id))
                m_firstDelta.insert(id, m_clock.nsecsElapsed());
            if (!p.value(wire::key::IsStreaming).toBool(true))
                ++m_finals[id];
        });
    }

    // flotillad on `dataDir`, its WebSocket, and host "box" connected.
    bool start(const QString &dataDir, const QProcessEnvironment &env) {
        if (!m_svc.start({QStringLiteral("--data-dir"), dataDir, QStringLiteral("--ssh-config"),
                          m_remote.sshConfig()},
                         env)) {
            std::fprintf(stderr, "flotillad did not start: %s\n", m_svc.stdErr().constData());
            return false;
        }
        m_ws.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws?token=%2")
                           .arg(m_svc.port())
                           .arg(QString::fromLatin1(m_token))));
        if (!QTest::qWaitFor([&] { return m_ws.state() == QAbstractSocket::ConnectedState; },
                             10000))
            return false;
        const HttpResponse r =
            m_http.post(url(QStringLiteral("/api/hosts")), {{hk::Name_, kHost},
                                                            {hk::Ssh, m_remote.destination()},
                                                            {hk::ClaudeBin, m_remote.claudeBin()},
                                                            {hk::CodexBin, m_remote.codexBin()}});
        const auto state = [&] {
            return m_http.get(url(QStringLiteral("/api/hosts/") + kHost))
                .object()
                .value(hk::State)
                .toString();
        };
        if (r.status != 201 ||
            !QTest::qWaitFor([&] { return state() == wire::host::state::Connected; }, 20000)) {
            std::fprintf(stderr, "host %s: %d %s, state %s\n", qPrintable(kHost), r.status,
                         r.body.constData(), qPrintable(state()));
            return false;
        }
        QTest::qWait(500); // the master's session there settles
        m_thereBaseline = memory().thereCount;
        return true;
    }

    // A new agent here or on "box" (its own directory), idle timeout off; its id or empty.
    QString create(const QString &provider, bool remote) {
        static int agents = 0;
        const QString dir = QStringLiteral("project-%1").arg(++agents);
        QString cwd = QDir(m_root.path()).filePath(dir);
        if (remote) {
            cwd = m_remote.home() + QLatin1Char('/') + dir;
            m_remote.writeHomeFile(dir + QStringLiteral("/README"), "hi\n");
        } else {
            QDir().mkpath(cwd);
        }
        QJsonObject body{{wire::key::Name_, QStringLiteral("%1-%2").arg(provider, dir)},
                         {wire::key::Cwd, cwd},
                         {wire::key::Provider, provider},
                         {wire::key::PermissionMode, QStringLiteral("auto")},
                         {QStringLiteral("idleTimeoutSeconds"), 0},
                         {hk::Host, remote ? kHost : QString(wire::host::Local)}};
        if (provider == QLatin1String("codex"))
            body.insert(wire::key::Model, QStringLiteral("gpt-mock"));
        const HttpResponse r = m_http.post(url(QStringLiteral("/api/agents")), body);
        if (r.status != 201)
            std::fprintf(stderr, "create %s: %d %s\n", qPrintable(provider), r.status,
                         r.body.constData());
        return r.object().value(wire::key::Id).toString();
    }

    // One message and its whole answer; `ms` gets the first delta. False (why on stderr) on
    // failure.
    bool turn(const QString &id, const QString &provider, double &ms) {
        if (provider == QLatin1String("codex"))
            m_openai.queueText(QStringLiteral("first delta, then more"), 3);
        else
            m_anthropic.queueText(QStringLiteral("first delta, then more"), 3);
        const int before = m_finals.value(id);
        m_firstDelta.remove(id);
        const qint64 sent = m_clock.nsecsElapsed();
        m_http.post(url(QStringLiteral("/api/agents/%1/message").arg(id)),
                    {{wire::key::Message, QStringLiteral("hello")}});
        if (!QTest::qWaitFor([&] { return m_finals.value(id) > before; }, 60000)) {
            std::fprintf(stderr, "%s: the turn did not end within 60 s: %s\n", qPrintable(id),
                         qPrintable(agent(id).value(wire::key::LastError).toString()));
            return false;
        }
        ms = double(m_firstDelta.value(id) - sent) / 1e6;
        return true;
    }

    // Stopped (an idle agent's process ends), and its processes gone here and there.
    bool stop(const QString &id) {
        m_http.post(url(QStringLiteral("/api/agents/bulk/stop")),
                    {{QStringLiteral("agentIds"), QJsonArray{id}}});
        return waitGone(id);
    }

    // Deleted, and its processes gone here and there.
    bool remove(const QString &id) {
        m_http.del(url(QStringLiteral("/api/agents/") + id));
        return waitGone(id);
    }

    bool waitGone(const QString &id) {
        const bool gone = QTest::qWaitFor(
            [&] {
                const Memory m = memory();
                return m.sessionCount == 0 && m.agents == 0 && m.thereCount <= m_thereBaseline;
            },
            15000);
        if (!gone)
            std::fprintf(stderr, "%s: its processes did not end within 15 s\n", qPrintable(id));
        return gone;
    }

    Memory memory() const {
        const QHash<qint64, Proc> all = snapshot();
        const qint64 svc = m_svc.pid();
        Memory m;
        m.service = all.value(svc).rssMiB;
        for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
            if (it->uid == m_uid) {
                m.there += it->rssMiB;
                ++m.thereCount;
            }
            if (it->ppid != svc)
                continue;
            if (it->name == "ssh" && isMaster(it.key())) {
                m.master += it->rssMiB;
                m.masterPss += pssMiB(it.key());
            } else if (it->name == "ssh") {
                m.sessions += it->rssMiB;
                m.sessionsPss += pssMiB(it.key());
                ++m.sessionCount;
            } else {
                for (const qint64 pid : subtree(all, it.key()))
                    m.agents += all.value(pid).rssMiB;
            }
        }
        return m;
    }

    // Ends flotillad (its agents and link with it) and waits until the account has no process.
    void stop() {
        m_svc.terminate();
        if (!QTest::qWaitFor([&] { return memory().thereCount == 0; }, 15000))
            std::fprintf(stderr, "the remote account still has %d processes\n",
                         memory().thereCount);
    }

private:
    QUrl url(const QString &path) const { return localUrl(m_svc.port(), path); }
    QJsonObject agent(const QString &id) {
        return m_http.get(url(QStringLiteral("/api/agents/") + id)).object();
    }

    QByteArray m_token;
    HttpClient m_http;
    MockAnthropic &m_anthropic;
    MockOpenAI &m_openai;
    RemoteHost &m_remote;
    uint m_uid;
    QTemporaryDir m_root;
    ServiceProcess m_svc;
    QWebSocket m_ws;
    QElapsedTimer m_clock;
    QHash<QString, qint64> m_firstDelta;
    QHash<QString, int> m_finals;
    int m_thereBaseline = 0;
};

QByteArray loadavg() {
    QFile f(QStringLiteral("/proc/loadavg"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed() : QByteArray();
}

QJsonObject report(const QString &label, const QList<double> &v, const char *unit) {
    const Stats s = stats(v);
    std::printf("  %-36s %8.1f / %8.1f / %8.1f %s\n", qPrintable(label), s.min, s.median, s.max,
                unit);
    return toJson(s);
}

// Both places and their paired differences (remote - local), printed and as JSON.
QJsonObject compare(const char *what, const QList<double> &local, const QList<double> &remote) {
    QList<double> paired;
    for (int i = 0; i < qMin(local.size(), remote.size()); ++i)
        paired.append(remote.at(i) - local.at(i));
    const QString name = QString::fromLatin1(what);
    return {{QStringLiteral("local"), report(name + QStringLiteral(", local"), local, "ms")},
            {QStringLiteral("remote"), report(name + QStringLiteral(", remote"), remote, "ms")},
            {QStringLiteral("pairedDifference"),
             report(name + QStringLiteral(", remote - local"), paired, "ms")}};
}

struct Latency {
    QList<double> cold, warm; // warm: every warm turn of every agent, in order
    QList<double> resumed;    // after a stop ended the process
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
    p.addOptions({runsOpt, warmOpt, agentsOpt, memRunsOpt, outOpt});
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
    // A host's link needs the service's token (docs/security.md "Hosts").
    const QByteArray token =
        QByteArray::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, '0');
    env.insert(QStringLiteral("AUTH_TOKEN"), QString::fromLatin1(token));
    int services = 0;
    const auto newService = [&]() -> std::unique_ptr<Service> {
        auto s = std::make_unique<Service>(anthropic, openai, remote, uid, token);
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
        {QStringLiteral("loadBefore"), QString::fromLatin1(loadBefore)}};
    const QStringList providers{QStringLiteral("claude"), QStringLiteral("codex")};

    // First delta: one service, local and remote agents alternating.
    std::unique_ptr<Service> svc = newService();
    if (!svc)
        return 2;
    for (const QString &provider : providers) {
        Latency local, there;
        for (int r = -1; r < runs; ++r) { // -1: the warm-up pair
            for (const bool isRemote : {false, true}) {
                const QString id = svc->create(provider, isRemote);
                double ms = 0;
                if (id.isEmpty() || !svc->turn(id, provider, ms))
                    return 2;
                Latency &into = isRemote ? there : local;
                if (r >= 0)
                    into.cold.append(ms);
                for (int w = 0; w < warm; ++w) {
                    if (!svc->turn(id, provider, ms))
                        return 2;
                    if (r >= 0)
                        into.warm.append(ms);
                }
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
            QJsonObject{{QStringLiteral("coldMs"), compare("cold", local.cold, there.cold)},
                        {QStringLiteral("warmMs"), compare("warm", local.warm, there.warm)},
                        {QStringLiteral("resumedMs"),
                         compare("after stop", local.resumed, there.resumed)}});
    }
    svc->stop();
    svc.reset();

    // Memory: a fresh service per sample, `agents` agents all here or all there.
    QJsonObject memory{{QStringLiteral("agents"), agents}, {QStringLiteral("runs"), memoryRuns}};
    for (const QString &provider : providers) {
        QJsonObject perProvider;
        for (const bool isRemote : {false, true}) {
            QList<double> service, sessions, sessionsPss, trees, there, master, masterPss, base;
            for (int r = 0; r < memoryRuns; ++r) {
                std::unique_ptr<Service> s = newService();
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
                const Memory m = s->memory();
                base.append(before.service);
                service.append((m.service - before.service) / agents);
                sessions.append(m.sessions / agents);
                sessionsPss.append(m.sessionsPss / agents);
                trees.append(m.agents / agents);
                there.append((m.there - before.there) / agents);
                master.append(m.master);
                masterPss.append(m.masterPss);
                s->stop();
            }
            const QString where = isRemote ? QStringLiteral("remote") : QStringLiteral("local");
            std::printf("%s memory, %d %s agents (min / median / max of %d)\n",
                        qPrintable(provider), agents, qPrintable(where), memoryRuns);
            perProvider.insert(
                where,
                QJsonObject{
                    {QStringLiteral("serviceAloneMiB"),
                     report(QStringLiteral("flotillad, host connected"), base, "MiB")},
                    {QStringLiteral("servicePerAgentMiB"),
                     report(QStringLiteral("flotillad added per agent"), service, "MiB")},
                    {QStringLiteral("sshSessionPerAgentMiB"),
                     report(QStringLiteral("ssh session client per agent"), sessions, "MiB")},
                    {QStringLiteral("sshSessionPerAgentPssMiB"),
                     report(QStringLiteral("  its PSS"), sessionsPss, "MiB")},
                    {QStringLiteral("localTreePerAgentMiB"),
                     report(QStringLiteral("local CLI tree per agent"), trees, "MiB")},
                    {QStringLiteral("remoteSidePerAgentMiB"),
                     report(QStringLiteral("there, per agent"), there, "MiB")},
                    {QStringLiteral("controlMasterMiB"),
                     report(QStringLiteral("ssh ControlMaster"), master, "MiB")},
                    {QStringLiteral("controlMasterPssMiB"),
                     report(QStringLiteral("  its PSS"), masterPss, "MiB")}});
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
