// Message to first streamed delta, Codex against Claude agents, and what one agent's CLI costs in
// memory. The real flotillad binary runs both real CLIs against the loopback mocks of their model
// APIs (the mocks answer at once, so the figures are the CLIs' and the service's own overhead):
//
//   cold: a new agent's first message (the CLI process starts: node, the CLI's own start-up,
//         Codex's initialize + thread/start) until its first `output` chunk on the WebSocket;
//   warm: the next message to the same agent, its process already running;
//   RSS:  after the warm turn, the resident memory of the agent's whole process tree (the CLI's
//         launcher and everything under it), summed from /proc.
//
//   bench_first_delta [--rounds 5] [--out bench/results/first-delta-<time>.json]

#include "BenchSupport.h"
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
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QWebSocket>

#include <algorithm>
#include <cstdio>

using namespace flotilla::bench;
using namespace flotilla::test;

namespace {

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

// RSS of the process tree flotillad started for `agentId`.
qint64 agentTreeRssKiB(qint64 servicePid, const QString &agentId) {
    const QHash<qint64, ProcInfo> all = processes();
    for (auto it = all.constBegin(); it != all.constEnd(); ++it) {
        if (it->ppid == servicePid && agentIdOf(it.key()) == agentId.toUtf8())
            return treeRssKiB(all, it.key());
    }
    return 0;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption roundsOpt(QStringLiteral("rounds"), QStringLiteral("Rounds."),
                                       QStringLiteral("n"), QStringLiteral("5"));
    const QCommandLineOption outOpt(QStringLiteral("out"), QStringLiteral("JSON result file."),
                                    QStringLiteral("path"));
    p.addOptions({roundsOpt, outOpt});
    p.process(app);
    const int rounds = qMax(1, p.value(roundsOpt).toInt());

    QTemporaryDir tmp;
    MockAnthropic anthropic;
    MockOpenAI openai;
    if (!tmp.isValid() || !anthropic.start() || !openai.start())
        return 2;
    const QString home = tmp.path() + QStringLiteral("/home");
    const QString cwd = tmp.path() + QStringLiteral("/project");
    QDir().mkpath(home);
    QDir().mkpath(cwd);
    QProcessEnvironment env = anthropic.claudeEnvironment(home);
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
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
    QWebSocket ws;
    QHash<QString, qint64> firstDeltaAt; // agent id -> ms on `clock`
    QElapsedTimer clock;
    clock.start();
    QObject::connect(&ws, &QWebSocket::textMessageReceived, [&](const QString &text) {
        const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
        if (m.value(QLatin1String("type")).toString() != QLatin1String("output"))
            return;
        const QString id =
            m.value(QLatin1String("payload")).toObject().value(QLatin1String("agentId")).toString();
        if (!firstDeltaAt.contains(id))
            firstDeltaAt.insert(id, clock.nsecsElapsed());
    });
    ws.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(svc.port())));
    if (!QTest::qWaitFor([&] { return ws.state() == QAbstractSocket::ConnectedState; }, 10000))
        return 2;

    HttpClient http;
    QJsonObject result{
        {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("rounds"), rounds}};
    for (const QString &provider : {QStringLiteral("claude"), QStringLiteral("codex")}) {
        QList<double> cold, warm, rss;
        for (int r = 0; r < rounds; ++r) {
            QJsonObject body{{QStringLiteral("name"), QStringLiteral("%1-%2").arg(provider).arg(r)},
                             {QStringLiteral("cwd"), cwd},
                             {QStringLiteral("provider"), provider},
                             {QStringLiteral("permissionMode"), QStringLiteral("auto")}};
            if (provider == QLatin1String("codex"))
                body.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
            const QString id = http.post(localUrl(svc.port(), QStringLiteral("/api/agents")), body)
                                   .object()
                                   .value(QLatin1String("id"))
                                   .toString();
            for (int turn = 0; turn < 2; ++turn) {
                if (provider == QLatin1String("codex"))
                    openai.queueText(QStringLiteral("first delta, then more"), 3);
                else
                    anthropic.queueText(QStringLiteral("first delta, then more"), 3);
                firstDeltaAt.remove(id);
                const qint64 sent = clock.nsecsElapsed();
                http.post(localUrl(svc.port(), QStringLiteral("/api/agents/%1/message").arg(id)),
                          {{QStringLiteral("message"), QStringLiteral("hello")}});
                if (!QTest::qWaitFor([&] { return firstDeltaAt.contains(id); }, 60000)) {
                    std::fprintf(stderr, "%s: no output within 60 s\n", qPrintable(provider));
                    return 2;
                }
                const double ms = double(firstDeltaAt.value(id) - sent) / 1e6;
                (turn == 0 ? cold : warm).append(ms);
                // The turn's end, before the next message (status back to idle).
                (void)QTest::qWaitFor(
                    [&] {
                        return http.get(localUrl(svc.port(), QStringLiteral("/api/agents/") + id))
                                   .object()
                                   .value(QLatin1String("status"))
                                   .toString() == QLatin1String("idle");
                    },
                    60000);
            }
            rss.append(double(agentTreeRssKiB(svc.pid(), id)) / 1024.0);
        }
        const Stats c = stats(cold), w = stats(warm), m = stats(rss);
        std::printf("%-6s first delta cold %.1f / %.1f / %.1f ms, warm %.1f / %.1f / %.1f ms; "
                    "agent RSS %.1f / %.1f / %.1f MiB\n",
                    qPrintable(provider), c.min, c.median, c.max, w.min, w.median, w.max, m.min,
                    m.median, m.max);
        result.insert(provider, QJsonObject{{QStringLiteral("coldMs"), toJson(c)},
                                            {QStringLiteral("warmMs"), toJson(w)},
                                            {QStringLiteral("rssMiB"), toJson(m)}});
    }
    // Agents end with the service, before the temporary HOME they write into is removed.
    svc.terminate();
    if (p.isSet(outOpt)) {
        QFile out(p.value(outOpt));
        if (out.open(QIODevice::WriteOnly))
            out.write(QJsonDocument(result).toJson());
    }
    return 0;
}
