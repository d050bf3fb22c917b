// What the workspace sandbox (bubblewrap) costs an agent's cold start and memory, against the same
// CLI started plainly. The real flotillad binary runs both real CLIs against the loopback mocks of
// their model APIs (they answer at once: the figures are the CLIs', bwrap's and the service's own
// overhead, not a model's):
//
//   first delta: a new agent (its CLI starts: a cold start) gets one message; ms from before the
//                POST /message until its first `output` chunk reaches a WebSocket client;
//   memory:      once the turn has ended, the agent's whole process tree (flotillad's child for
//                the agent and everything under it: with the sandbox, bwrap's two processes too)
//                from /proc/<pid>/status: VmRSS summed, VmHWM summed (each process' own peak:
//                an upper bound on the tree's peak), and bwrap's processes alone.
//
// Modes alternate (off, workspace, off, workspace ...) so that whatever else runs on the machine
// hits both alike; each pair gives one paired difference (workspace - off). Every agent is deleted
// and its processes gone before the next one starts. One pair per provider first warms the page
// cache and is not counted.
//
//   bench_sandbox [--runs 5] [--out bench/results/sandbox-<date>.json]

#include "BenchSupport.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"
#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/MockOpenAI.h"
#include "support/ServiceProcess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <algorithm>
#include <cstdio>

using namespace flotilla;
using namespace flotilla::bench;
using namespace flotilla::test;

namespace {

const QList<QString> kModes{wire::sandbox::mode::Off, wire::sandbox::mode::Workspace};

QByteArray agentIdOf(qint64 pid) {
    QFile f(QStringLiteral("/proc/%1/environ").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    for (const QByteArray &kv : f.readAll().split('\0')) {
        if (kv.startsWith("FLOTILLA_AGENT_ID="))
            return kv.mid(18);
    }
    return {};
}

// The pids of the process tree flotillad started for `agentId`, its root first.
QList<qint64> agentTree(qint64 servicePid, const QString &agentId) {
    const QHash<qint64, ProcInfo> all = processes();
    for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
        if (it->ppid != servicePid || agentIdOf(it.key()) != agentId.toUtf8())
            continue;
        QList<qint64> tree{it.key()};
        for (int i = 0; i < tree.size(); ++i) {
            for (auto c = all.constBegin(); c != all.constEnd(); ++c) {
                if (c->ppid == tree.at(i))
                    tree.append(c.key());
            }
        }
        return tree;
    }
    return {};
}

struct Memory {
    double rssMiB = 0, peakMiB = 0, bwrapMiB = 0;
    int processes = 0;
};

Memory memoryOf(const QList<qint64> &tree) {
    Memory m;
    for (const qint64 pid : tree) {
        QFile f(QStringLiteral("/proc/%1/status").arg(pid));
        if (!f.open(QIODevice::ReadOnly))
            continue;
        QByteArray name;
        double rss = 0, hwm = 0;
        for (const QByteArray &line : f.readAll().split('\n')) {
            const auto kib = [&] { return line.mid(6).trimmed().split(' ').value(0).toDouble(); };
            if (line.startsWith("Name:"))
                name = line.mid(5).trimmed();
            else if (line.startsWith("VmRSS:"))
                rss = kib() / 1024.0;
            else if (line.startsWith("VmHWM:"))
                hwm = kib() / 1024.0;
        }
        m.rssMiB += rss;
        m.peakMiB += hwm;
        if (name == "bwrap")
            m.bwrapMiB += rss;
        ++m.processes;
    }
    return m;
}

struct Sample {
    double ms = 0;
    Memory memory;
};

class Bench {
public:
    Bench(MockAnthropic &anthropic, MockOpenAI &openai, ServiceProcess &svc, QString root)
        : m_anthropic(anthropic)
        , m_openai(openai)
        , m_svc(svc)
        , m_root(std::move(root)) {
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
                m_ended.insert(id);
        });
    }

    bool connect() {
        m_ws.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(m_svc.port())));
        return QTest::qWaitFor([&] { return m_ws.state() == QAbstractSocket::ConnectedState; },
                               10000);
    }

    // One new agent of `provider` in `mode`, one message; false (with why on stderr) on failure.
    bool measure(const QString &provider, const QString &mode, Sample &out) {
        const QString cwd = QStringLiteral("%1/project-%2").arg(m_root).arg(++m_agents);
        QDir().mkpath(cwd);
        QJsonObject body{
            {wire::key::Name_, QStringLiteral("%1-%2").arg(provider).arg(m_agents)},
            {wire::key::Cwd, cwd},
            {wire::key::Provider, provider},
            {wire::key::PermissionMode, QStringLiteral("auto")},
            {wire::sandbox::key::Sandbox, QJsonObject{{wire::sandbox::key::Mode, mode}}}};
        if (provider == QLatin1String("codex"))
            body.insert(wire::key::Model, QStringLiteral("gpt-mock"));
        const HttpResponse created = m_http.post(url(QStringLiteral("/api/agents")), body);
        const QString id = created.object().value(wire::key::Id).toString();
        if (created.status != 201 || id.isEmpty()) {
            std::fprintf(stderr, "%s %s: create answered %d %s\n", qPrintable(provider),
                         qPrintable(mode), created.status, created.body.constData());
            return false;
        }
        if (provider == QLatin1String("codex"))
            m_openai.queueText(QStringLiteral("first delta, then more"), 3);
        else
            m_anthropic.queueText(QStringLiteral("first delta, then more"), 3);
        const qint64 sent = m_clock.nsecsElapsed();
        m_http.post(url(QStringLiteral("/api/agents/%1/message").arg(id)),
                    {{wire::key::Message, QStringLiteral("hello")}});
        if (!QTest::qWaitFor([&] { return m_ended.contains(id); }, 60000)) {
            std::fprintf(stderr, "%s %s: the turn did not end within 60 s\n", qPrintable(provider),
                         qPrintable(mode));
            return false;
        }
        out.ms = double(m_firstDelta.value(id) - sent) / 1e6;
        const QList<qint64> tree = agentTree(m_svc.pid(), id);
        out.memory = memoryOf(tree);
        // Gone before the next agent starts, so that its teardown does not share the cores with
        // the next cold start.
        m_http.del(url(QStringLiteral("/api/agents/") + id));
        return QTest::qWaitFor(
            [&] {
                return std::none_of(tree.begin(), tree.end(), [](qint64 pid) {
                    return QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid));
                });
            },
            10000);
    }

private:
    QUrl url(const QString &path) const { return localUrl(m_svc.port(), path); }

    MockAnthropic &m_anthropic;
    MockOpenAI &m_openai;
    ServiceProcess &m_svc;
    QString m_root;
    HttpClient m_http;
    QWebSocket m_ws;
    QElapsedTimer m_clock;
    QHash<QString, qint64> m_firstDelta;
    QSet<QString> m_ended;
    int m_agents = 0;
};

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption runsOpt(QStringLiteral("runs"),
                                     QStringLiteral("Agents per provider and mode."),
                                     QStringLiteral("n"), QStringLiteral("5"));
    const QCommandLineOption outOpt(QStringLiteral("out"), QStringLiteral("JSON result file."),
                                    QStringLiteral("path"));
    p.addOptions({runsOpt, outOpt});
    p.process(app);
    const int runs = qMax(1, p.value(runsOpt).toInt());

    QTemporaryDir tmp;
    MockAnthropic anthropic;
    MockOpenAI openai;
    if (!tmp.isValid() || !anthropic.start() || !openai.start())
        return 2;
    const QString home = tmp.path() + QStringLiteral("/home");
    QDir().mkpath(home);
    QProcessEnvironment env = anthropic.claudeEnvironment(home);
    const QProcessEnvironment codexEnv = openai.codexEnvironment(home);
    for (const QString &key : codexEnv.keys())
        env.insert(key, codexEnv.value(key));
    env.insert(QStringLiteral("FLOTILLA_CLAUDE_BIN"), MockAnthropic::claudeBinary());
    env.insert(QStringLiteral("FLOTILLA_CODEX_BIN"), MockOpenAI::codexBinary());
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    ServiceProcess svc;
    if (!svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")}, env)) {
        std::fprintf(stderr, "flotillad did not start: %s\n", svc.stdErr().constData());
        return 2;
    }
    Bench bench(anthropic, openai, svc, tmp.path());
    if (!bench.connect())
        return 2;

    const QByteArray loadBefore = loadavg();
    std::printf("load before: %s\n", loadBefore.constData());
    QJsonObject result{
        {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("runs"), runs},
        {QStringLiteral("loadBefore"), QString::fromLatin1(loadBefore)}};
    for (const QString &provider : {QStringLiteral("claude"), QStringLiteral("codex")}) {
        QHash<QString, QList<Sample>> samples;
        for (int r = -1; r < runs; ++r) { // -1: the warm-up pair
            for (const QString &mode : kModes) {
                Sample s;
                if (!bench.measure(provider, mode, s))
                    return 2;
                if (r >= 0)
                    samples[mode].append(s);
            }
        }
        std::printf("%s (min / median / max of %d)\n", qPrintable(provider), runs);
        QJsonObject out;
        for (const QString &mode : kModes) {
            QList<double> ms, rss, peak, bwrap, count;
            for (const Sample &s : samples.value(mode)) {
                ms.append(s.ms);
                rss.append(s.memory.rssMiB);
                peak.append(s.memory.peakMiB);
                bwrap.append(s.memory.bwrapMiB);
                count.append(s.memory.processes);
            }
            out.insert(
                mode,
                QJsonObject{{QStringLiteral("firstDeltaMs"),
                             report(mode + QStringLiteral(" first delta"), ms, "ms")},
                            {QStringLiteral("rssMiB"),
                             report(mode + QStringLiteral(" tree RSS"), rss, "MiB")},
                            {QStringLiteral("peakMiB"),
                             report(mode + QStringLiteral(" tree peak (sum VmHWM)"), peak, "MiB")},
                            {QStringLiteral("bwrapRssMiB"),
                             report(mode + QStringLiteral(" bwrap RSS"), bwrap, "MiB")},
                            {QStringLiteral("processes"),
                             report(mode + QStringLiteral(" processes"), count, "")}});
        }
        QList<double> dMs, dRss, dPeak;
        const QList<Sample> off = samples.value(kModes.at(0)), ws = samples.value(kModes.at(1));
        for (int i = 0; i < runs; ++i) {
            dMs.append(ws.at(i).ms - off.at(i).ms);
            dRss.append(ws.at(i).memory.rssMiB - off.at(i).memory.rssMiB);
            dPeak.append(ws.at(i).memory.peakMiB - off.at(i).memory.peakMiB);
        }
        out.insert(QStringLiteral("pairedDifference"),
                   QJsonObject{{QStringLiteral("firstDeltaMs"),
                                report(QStringLiteral("workspace - off, first delta"), dMs, "ms")},
                               {QStringLiteral("rssMiB"),
                                report(QStringLiteral("workspace - off, RSS"), dRss, "MiB")},
                               {QStringLiteral("peakMiB"),
                                report(QStringLiteral("workspace - off, peak"), dPeak, "MiB")}});
        result.insert(provider, out);
    }
    const QByteArray loadAfter = loadavg();
    std::printf("load after: %s\n", loadAfter.constData());
    result.insert(QStringLiteral("loadAfter"), QString::fromLatin1(loadAfter));
    // Agents end with the service, before the temporary HOME they write into is removed.
    svc.terminate();
    if (p.isSet(outOpt)) {
        QFile f(p.value(outOpt));
        if (f.open(QIODevice::WriteOnly))
            f.write(QJsonDocument(result).toJson());
    }
    return 0;
}
