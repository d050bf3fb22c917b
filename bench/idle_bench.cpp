// What idle agents cost, and what releasing them costs back. The real flotillad binary
// runs the real CLI (Claude Code or Codex) against its loopback mock model:
//
//   memory:  N agents each run one turn; then the RSS of flotillad's whole process tree
//            (flotillad + every agent process and everything under them, from /proc) while the
//            agents idle with their processes, and again once their idle timeout (2 s, set per
//            agent with PATCH idleTimeoutSeconds: the agents start with 0, never, so that none is
//            released before the last one has answered) has released them;
//   latency: message -> first streamed `output` chunk on a WebSocket client, to a new agent
//            (cold: the CLI starts), to the same agent with its process (warm), and after its
//            idle timeout released the process (released: the CLI starts and resumes the
//            session). min / median / max over --rounds agents.
//
//   bench_idle [--provider claude|codex] [--agents 1,10,50] [--rounds 5] [--out FILE.json]

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

// RSS (KiB) of `root` and every process below it, and how many processes that is.
QPair<qint64, int> treeRss(qint64 root) {
    int count = 0;
    const qint64 kib = treeRssKiB(processes(), root, &count);
    return {kib, count};
}

class Bench {
public:
    Bench(QString provider, MockAnthropic &anthropic, MockOpenAI &openai, ServiceProcess &svc)
        : m_provider(std::move(provider))
        , m_anthropic(anthropic)
        , m_openai(openai)
        , m_svc(svc) {
        m_clock.start();
        QObject::connect(&m_ws, &QWebSocket::textMessageReceived, [this](const QString &text) {
            const QJsonObject m = QJsonDocument::fromJson(text.toUtf8()).object();
            if (m.value(QLatin1String("type")).toString() != QLatin1String("output"))
                return;
            const QJsonObject p = m.value(QLatin1String("payload")).toObject();
            const QString id = p.value(QLatin1String("agentId")).toString();
            if (!m_firstDelta.contains(id))
                m_firstDelta.insert(id, m_clock.nsecsElapsed());
            if (!p.value(QLatin1String("isStreaming")).toBool(true))
                ++m_finals[id];
        });
    }

    bool connect() {
        m_ws.open(QUrl(QStringLiteral("ws://127.0.0.1:%1/ws").arg(m_svc.port())));
        return QTest::qWaitFor([&] { return m_ws.state() == QAbstractSocket::ConnectedState; },
                               10000);
    }

    QUrl url(const QString &path) const { return localUrl(m_svc.port(), path); }

    QString create(const QString &name, const QString &cwd) {
        QJsonObject body{{QStringLiteral("name"), name},
                         {QStringLiteral("cwd"), cwd},
                         {QStringLiteral("provider"), m_provider},
                         {QStringLiteral("permissionMode"), QStringLiteral("auto")},
                         {QStringLiteral("idleTimeoutSeconds"), 0}};
        if (m_provider == QLatin1String("codex"))
            body.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
        return m_http.post(url(QStringLiteral("/api/agents")), body)
            .object()
            .value(QLatin1String("id"))
            .toString();
    }

    void queueAnswer() {
        if (m_provider == QLatin1String("codex"))
            m_openai.queueText(QStringLiteral("first delta, then more"), 3);
        else
            m_anthropic.queueText(QStringLiteral("first delta, then more"), 3);
    }

    void send(const QString &id) {
        queueAnswer();
        m_firstDelta.remove(id);
        m_sentAt.insert(id, m_clock.nsecsElapsed());
        m_http.post(url(QStringLiteral("/api/agents/%1/message").arg(id)),
                    {{QStringLiteral("message"), QStringLiteral("hello")}});
    }

    // Waits for every agent's n-th final chunk.
    bool waitFinals(const QStringList &ids, int n, int timeoutMs) {
        return QTest::qWaitFor(
            [&] {
                return std::all_of(ids.begin(), ids.end(),
                                   [&](const QString &id) { return m_finals.value(id) >= n; });
            },
            timeoutMs);
    }

    double firstDeltaMs(const QString &id) const {
        return double(m_firstDelta.value(id) - m_sentAt.value(id)) / 1e6;
    }

    QJsonObject agent(const QString &id) {
        return m_http.get(url(QStringLiteral("/api/agents/") + id)).object();
    }

    bool running(const QString &id) {
        return agent(id).value(QLatin1String("isProcessRunning")).toBool();
    }

    void setIdleTimeout(const QString &id, int seconds) {
        m_http.patch(url(QStringLiteral("/api/agents/") + id),
                     {{QStringLiteral("idleTimeoutSeconds"), seconds}});
    }

    bool waitReleased(const QStringList &ids, int timeoutMs) {
        return QTest::qWaitFor(
            [&] {
                return std::none_of(ids.begin(), ids.end(),
                                    [&](const QString &id) { return running(id); });
            },
            timeoutMs);
    }

private:
    QString m_provider;
    MockAnthropic &m_anthropic;
    MockOpenAI &m_openai;
    ServiceProcess &m_svc;
    HttpClient m_http;
    QWebSocket m_ws;
    QElapsedTimer m_clock;
    QHash<QString, qint64> m_firstDelta, m_sentAt;
    QHash<QString, int> m_finals;
};

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption providerOpt(QStringLiteral("provider"),
                                         QStringLiteral("claude or codex."), QStringLiteral("name"),
                                         QStringLiteral("claude"));
    const QCommandLineOption agentsOpt(QStringLiteral("agents"),
                                       QStringLiteral("Agent counts for the memory figures."),
                                       QStringLiteral("list"), QStringLiteral("1,10,50"));
    const QCommandLineOption roundsOpt(QStringLiteral("rounds"),
                                       QStringLiteral("Agents for the latency figures."),
                                       QStringLiteral("n"), QStringLiteral("5"));
    const QCommandLineOption outOpt(QStringLiteral("out"), QStringLiteral("JSON result file."),
                                    QStringLiteral("path"));
    p.addOptions({providerOpt, agentsOpt, roundsOpt, outOpt});
    p.process(app);
    const QString provider = p.value(providerOpt);
    const int rounds = qMax(0, p.value(roundsOpt).toInt()); // 0: memory only
    QList<int> sizes;
    for (const QString &n : p.value(agentsOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
        sizes.append(n.toInt());

    QTemporaryDir tmp;
    MockAnthropic anthropic;
    MockOpenAI openai;
    if (!tmp.isValid() || !anthropic.start() || !openai.start())
        return 2;
    const QString home = tmp.path() + QStringLiteral("/home");
    QDir().mkpath(home);
    QProcessEnvironment env = provider == QLatin1String("codex")
                                  ? openai.codexEnvironment(home)
                                  : anthropic.claudeEnvironment(home);
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(QStringLiteral("FLOTILLA_CLAUDE_BIN"), MockAnthropic::claudeBinary());
    env.insert(QStringLiteral("FLOTILLA_CODEX_BIN"), MockOpenAI::codexBinary());
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));

    QJsonObject result{
        {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("provider"), provider},
        {QStringLiteral("idleTimeoutSeconds"), 2}};
    int serviceNo = 0;
    auto startService = [&](ServiceProcess &svc) {
        return svc.start({QStringLiteral("--data-dir"),
                          tmp.path() + QStringLiteral("/data-%1").arg(++serviceNo),
                          QStringLiteral("--idle-timeout"), QStringLiteral("0")},
                         env);
    };

    // Memory: N agents after one turn, before and after their idle timeout.
    QJsonArray memory;
    for (const int n : sizes) {
        ServiceProcess svc;
        if (!startService(svc))
            return 2;
        Bench bench(provider, anthropic, openai, svc);
        if (!bench.connect())
            return 2;
        const auto [startKiB, startProcs] = treeRss(svc.pid());
        QStringList ids;
        for (int i = 0; i < n; ++i) {
            const QString cwd = tmp.path() + QStringLiteral("/mem-%1-%2").arg(n).arg(i);
            QDir().mkpath(cwd);
            ids.append(bench.create(QStringLiteral("agent-%1").arg(i), cwd));
        }
        QElapsedTimer took;
        took.start();
        for (const QString &id : ids)
            bench.send(id);
        if (!bench.waitFinals(ids, 1, 300000)) {
            std::fprintf(stderr, "%d agents: not every turn ended within 300 s\n", n);
            return 2;
        }
        const double turnsSeconds = double(took.elapsed()) / 1000;
        QTest::qWait(1000); // let the CLIs finish what they do after a turn
        const auto [beforeKiB, beforeProcs] = treeRss(svc.pid());
        for (const QString &id : ids)
            bench.setIdleTimeout(id, 2);
        took.restart();
        if (!bench.waitReleased(ids, 120000)) {
            std::fprintf(stderr, "%d agents: not all released within 120 s\n", n);
            return 2;
        }
        const double releaseSeconds = double(took.elapsed()) / 1000;
        QTest::qWait(500);
        const auto [afterKiB, afterProcs] = treeRss(svc.pid());
        std::printf("%-5s %2d agents: tree RSS at start %.1f MiB; after one turn each %.1f MiB "
                    "(%d processes; turns took %.1f s); after the idle timeout %.1f MiB (%d "
                    "processes; released %.1f s after the PATCH)\n",
                    qPrintable(provider), n, startKiB / 1024.0, beforeKiB / 1024.0, beforeProcs,
                    turnsSeconds, afterKiB / 1024.0, afterProcs, releaseSeconds);
        std::fflush(stdout);
        memory.append(QJsonObject{{QStringLiteral("agents"), n},
                                  {QStringLiteral("startMiB"), startKiB / 1024.0},
                                  {QStringLiteral("idleMiB"), beforeKiB / 1024.0},
                                  {QStringLiteral("idleProcesses"), beforeProcs},
                                  {QStringLiteral("releasedMiB"), afterKiB / 1024.0},
                                  {QStringLiteral("releasedProcesses"), afterProcs},
                                  {QStringLiteral("turnsSeconds"), turnsSeconds}});
        svc.terminate(60000);
    }
    result.insert(QStringLiteral("memory"), memory);

    // Latency: cold (new agent), warm, released (resumed after the idle timeout).
    if (rounds > 0) {
        ServiceProcess svc;
        if (!startService(svc))
            return 2;
        Bench bench(provider, anthropic, openai, svc);
        if (!bench.connect())
            return 2;
        QList<double> cold, warm, released;
        for (int r = 0; r < rounds; ++r) {
            const QString cwd = tmp.path() + QStringLiteral("/lat-%1").arg(r);
            QDir().mkpath(cwd);
            const QString id = bench.create(QStringLiteral("lat-%1").arg(r), cwd);
            for (int turn = 1; turn <= 3; ++turn) {
                if (turn == 3) {
                    bench.setIdleTimeout(id, 1);
                    if (!bench.waitReleased({id}, 30000))
                        return 2;
                }
                bench.send(id);
                if (!bench.waitFinals({id}, turn, 60000))
                    return 2;
                (turn == 1 ? cold : turn == 2 ? warm : released).append(bench.firstDeltaMs(id));
                QTest::qWait(200); // the status is idle again before the next message
            }
        }
        const Stats c = stats(cold), w = stats(warm), rel = stats(released);
        std::printf("%-5s first delta: cold %.0f / %.0f / %.0f ms, warm %.0f / %.0f / %.0f ms, "
                    "released %.0f / %.0f / %.0f ms (%d agents)\n",
                    qPrintable(provider), c.min, c.median, c.max, w.min, w.median, w.max, rel.min,
                    rel.median, rel.max, rounds);
        result.insert(QStringLiteral("firstDeltaMs"),
                      QJsonObject{{QStringLiteral("cold"), toJson(c)},
                                  {QStringLiteral("warm"), toJson(w)},
                                  {QStringLiteral("released"), toJson(rel)},
                                  {QStringLiteral("rounds"), rounds}});
        svc.terminate(60000);
    }
    if (p.isSet(outOpt)) {
        QFile out(p.value(outOpt));
        if (out.open(QIODevice::WriteOnly))
            out.write(QJsonDocument(result).toJson());
    }
    return 0;
}
