// Output streaming under load, end to end: the mock model streams text deltas to N agents (the
// real `claude` CLI, the real flotillad binary), and M WebSocket clients in separate processes
// measure how long each delta took from the mock's socket write to their receive. Every delta
// carries its write time (MockAnthropic::kStampToken, steady clock in microseconds, which all
// processes of the machine share), so the latency covers CLI, service and fan-out.
//
//   bench_stream [--agents 10] [--clients 50] [--rate 1000] [--seconds 10] [--procs 2]
//                [--out bench/results/stream-<time>.json]
//   bench_stream client --url ws://... --clients N --finals F --timeout S   (spawned by the driver;
//                finals 0: connect, print "ready", stay connected until the timeout;
//                scale_bench.sh)

#include "support/HttpClient.h"
#include "support/MockAnthropic.h"
#include "support/ServiceProcess.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QWebSocket>

#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <vector>

using namespace flotilla::test;

namespace {

constexpr qint64 kBucketUs = 10; // histogram resolution

qint64 nowUs() {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// --- client mode -------------------------------------------------------------------------------

struct ClientStats {
    std::map<qint64, qint64> buckets; // latency / kBucketUs -> count
    qint64 samples = 0;
    qint64 messages = 0;
    int finals = 0;
    bool done = false; // counted once: later messages (agent_updated) must not count it again
};

// Every "<t123>" in the message is one delta written by the mock at steady time 123 us.
void scan(const QString &message, qint64 receivedUs, ClientStats &stats) {
    ++stats.messages;
    qsizetype from = 0;
    while ((from = message.indexOf(QLatin1String("<t"), from)) >= 0) {
        from += 2;
        qint64 stamp = 0;
        qsizetype i = from;
        while (i < message.size() && message.at(i).isDigit())
            stamp = stamp * 10 + message.at(i++).digitValue();
        if (i == from || i >= message.size() || message.at(i) != QLatin1Char('>'))
            continue;
        ++stats.samples;
        ++stats.buckets[(receivedUs - stamp) / kBucketUs];
    }
    if (message.contains(QLatin1String("\"isStreaming\":false")) &&
        message.contains(QLatin1String("\"type\":\"output\"")))
        ++stats.finals;
}

int runClients(const QUrl &url, int clients, int finalsExpected, int timeoutS) {
    std::vector<std::unique_ptr<QWebSocket>> sockets;
    std::vector<ClientStats> stats(static_cast<size_t>(clients));
    int connected = 0;
    int done = 0;
    QEventLoop loop;
    for (int c = 0; c < clients; ++c) {
        auto socket = std::make_unique<QWebSocket>();
        socket->setReadBufferSize(0);
        QObject::connect(socket.get(), &QWebSocket::connected, &loop, [&] {
            if (++connected == clients) {
                std::printf("ready\n");
                std::fflush(stdout);
            }
        });
        ClientStats *mine = &stats[size_t(c)];
        QObject::connect(
            socket.get(), &QWebSocket::textMessageReceived, &loop, [&, mine](const QString &m) {
                scan(m, nowUs(), *mine);
                // finals 0: idle clients that stay until the timeout
                if (finalsExpected > 0 && !mine->done && mine->finals >= finalsExpected) {
                    mine->done = true;
                    if (++done == clients)
                        loop.quit();
                }
            });
        socket->open(url);
        sockets.push_back(std::move(socket));
    }
    QTimer::singleShot(timeoutS * 1000, &loop, &QEventLoop::quit);
    loop.exec();

    QJsonObject buckets;
    qint64 samples = 0, messages = 0;
    int complete = 0;
    std::map<qint64, qint64> merged;
    for (const ClientStats &s : stats) {
        samples += s.samples;
        messages += s.messages;
        complete += s.finals >= finalsExpected ? 1 : 0;
        for (const auto &[bucket, count] : s.buckets)
            merged[bucket] += count;
    }
    for (const auto &[bucket, count] : merged)
        buckets.insert(QString::number(bucket), count);
    const QJsonObject result{{QStringLiteral("clients"), clients},
                             {QStringLiteral("complete"), complete},
                             {QStringLiteral("samples"), samples},
                             {QStringLiteral("messages"), messages},
                             {QStringLiteral("buckets"), buckets}};
    std::printf("%s\n", QJsonDocument(result).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);
    return complete == clients ? 0 : 1;
}

// --- driver ------------------------------------------------------------------------------------

qint64 rssKiB(qint64 pid, const char *field) {
    QFile f(QStringLiteral("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toLongLong();
    }
    return 0;
}

double percentile(const std::map<qint64, qint64> &buckets, qint64 total, double p) {
    const qint64 rank = qMin(total - 1, qint64(double(total) * p));
    qint64 seen = 0;
    for (const auto &[bucket, count] : buckets) {
        seen += count;
        if (seen > rank)
            return double((bucket + 1) * kBucketUs) / 1000.0; // upper edge, ms
    }
    return 0;
}

bool waitUntil(const std::function<bool()> &done, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        // Sleep in the event loop until something happens or 20 ms pass. processEvents(flags, ms)
        // returns at once when nothing is pending, so calling it in a loop spun one of the two
        // cores the service and the CLIs under test need (89 % CPU in this process).
        QEventLoop idle;
        QTimer::singleShot(20, &idle, &QEventLoop::quit);
        idle.exec();
    }
    return true;
}

int runDriver(const QCommandLineParser &args, const QString &self) {
    const int agents = args.value(QStringLiteral("agents")).toInt();
    const int clients = args.value(QStringLiteral("clients")).toInt();
    const int rate = args.value(QStringLiteral("rate")).toInt();
    const int seconds = args.value(QStringLiteral("seconds")).toInt();
    const int procs = qMax(1, args.value(QStringLiteral("procs")).toInt());
    const int delayMs = qMax(1, 1000 / qMax(1, rate));
    const int deltas = seconds * 1000 / delayMs;

    QTemporaryDir tmp;
    MockAnthropic mock;
    if (!mock.start())
        return 2;
    const QString home = tmp.path() + QStringLiteral("/home");
    const QString cwd = tmp.path() + QStringLiteral("/project");
    QDir().mkpath(home);
    QDir().mkpath(cwd);
    QProcessEnvironment env = mock.claudeEnvironment(home);
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(QStringLiteral("FLOTILLA_CLAUDE_BIN"), MockAnthropic::claudeBinary());
    env.insert(QStringLiteral("QT_LOGGING_RULES"), QStringLiteral("*.info=false"));
    ServiceProcess svc;
    if (!svc.start({QStringLiteral("--data-dir"), tmp.path() + QStringLiteral("/data")}, env)) {
        std::fprintf(stderr, "flotillad did not start: %s\n", svc.stdErr().constData());
        return 2;
    }
    HttpClient http;
    QStringList ids;
    for (int a = 0; a < agents; ++a) {
        const HttpResponse r =
            http.post(localUrl(svc.port(), QStringLiteral("/api/agents")),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("stream-%1").arg(a)},
                                  {QStringLiteral("cwd"), cwd}});
        ids << r.object().value(QStringLiteral("id")).toString();
    }
    auto allIdle = [&] {
        const QJsonArray list =
            http.get(localUrl(svc.port(), QStringLiteral("/api/agents/status"))).array();
        int idle = 0;
        for (const QJsonValue &v : list)
            idle += v[QStringLiteral("status")].toString() == QLatin1String("idle") ? 1 : 0;
        return idle == agents;
    };
    // Warm-up: every agent's CLI is started (1-2 s each) before anything is measured.
    for (const QString &id : std::as_const(ids)) {
        mock.queueText(QStringLiteral("warm"), 1);
        http.post(localUrl(svc.port(), QStringLiteral("/api/agents/%1/message").arg(id)),
                  QJsonObject{{QStringLiteral("message"), QStringLiteral("warm up")}});
    }
    if (!waitUntil(allIdle, 120000)) {
        std::fprintf(stderr, "agents did not get idle after the warm-up\n");
        return 2;
    }

    // The measuring clients, in their own processes so their parsing does not delay the mock.
    std::vector<std::unique_ptr<QProcess>> clientProcs;
    int ready = 0;
    for (int p = 0; p < procs; ++p) {
        auto proc = std::make_unique<QProcess>();
        const int n = clients / procs + (p < clients % procs ? 1 : 0);
        proc->start(self, {QStringLiteral("client"), QStringLiteral("--url"),
                           QStringLiteral("ws://127.0.0.1:%1/ws").arg(svc.port()),
                           QStringLiteral("--clients"), QString::number(n),
                           QStringLiteral("--finals"), QString::number(agents),
                           QStringLiteral("--timeout"), QString::number(seconds * 4 + 60)});
        clientProcs.push_back(std::move(proc));
    }
    for (auto &proc : clientProcs) {
        if (!waitUntil([&] { return proc->canReadLine() || proc->state() == QProcess::NotRunning; },
                       60000) ||
            proc->readLine().trimmed() != "ready") {
            std::fprintf(stderr, "a client process did not connect\n");
            return 2;
        }
        ++ready;
    }

    QStringList pieces;
    pieces.reserve(deltas);
    for (int i = 0; i < deltas; ++i)
        pieces << QStringLiteral("<t%1> token %2 ")
                      .arg(QString::fromLatin1(MockAnthropic::kStampToken))
                      .arg(i);
    for (int a = 0; a < agents; ++a)
        mock.queueDeltas(pieces, delayMs);
    const qint64 rssBefore = rssKiB(svc.pid(), "VmRSS:");
    qint64 rssPeak = rssBefore;
    QTimer sampler;
    QObject::connect(&sampler, &QTimer::timeout,
                     [&] { rssPeak = qMax(rssPeak, rssKiB(svc.pid(), "VmRSS:")); });
    sampler.start(100);
    QElapsedTimer wall;
    wall.start();
    for (const QString &id : std::as_const(ids))
        http.post(localUrl(svc.port(), QStringLiteral("/api/agents/%1/message").arg(id)),
                  QJsonObject{{QStringLiteral("message"), QStringLiteral("stream")}});
    waitUntil(
        [&] {
            for (auto &proc : clientProcs) {
                if (proc->state() == QProcess::Running)
                    return false;
            }
            return true;
        },
        (seconds * 4 + 90) * 1000);
    const qint64 wallMs = wall.elapsed();
    sampler.stop();

    std::map<qint64, qint64> merged;
    qint64 samples = 0, messages = 0;
    int complete = 0;
    for (auto &proc : clientProcs) {
        const QJsonObject r =
            QJsonDocument::fromJson(proc->readAllStandardOutput().trimmed()).object();
        samples += r.value(QStringLiteral("samples")).toInteger();
        messages += r.value(QStringLiteral("messages")).toInteger();
        complete += r.value(QStringLiteral("complete")).toInt();
        const QJsonObject b = r.value(QStringLiteral("buckets")).toObject();
        for (auto it = b.constBegin(); it != b.constEnd(); ++it)
            merged[it.key().toLongLong()] += it.value().toInteger();
    }
    const qint64 expected = qint64(deltas) * agents * clients;
    const QJsonObject result{
        {QStringLiteral("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
        {QStringLiteral("agents"), agents},
        {QStringLiteral("clients"), clients},
        {QStringLiteral("deltasPerSecondPerAgent"), 1000 / delayMs},
        {QStringLiteral("deltasPerAgent"), deltas},
        {QStringLiteral("clientsComplete"), complete},
        {QStringLiteral("deltasExpected"), expected},
        {QStringLiteral("deltasReceived"), samples},
        {QStringLiteral("wsMessages"), messages},
        {QStringLiteral("wallMs"), wallMs},
        {QStringLiteral("latencyMs"),
         QJsonObject{{QStringLiteral("p50"), percentile(merged, samples, 0.50)},
                     {QStringLiteral("p99"), percentile(merged, samples, 0.99)},
                     {QStringLiteral("p999"), percentile(merged, samples, 0.999)},
                     {QStringLiteral("max"), percentile(merged, samples, 1.0)}}},
        {QStringLiteral("flotilladRssKiB"),
         QJsonObject{{QStringLiteral("before"), rssBefore},
                     {QStringLiteral("peakSampled"), rssPeak},
                     {QStringLiteral("hwm"), rssKiB(svc.pid(), "VmHWM:")}}}};
    const QByteArray json = QJsonDocument(result).toJson();
    std::printf("%s", json.constData());
    const QString out = args.value(QStringLiteral("out"));
    if (!out.isEmpty()) {
        QFile f(out);
        if (f.open(QIODevice::WriteOnly))
            f.write(json);
    }
    svc.terminate();
    return complete == clients && samples == expected ? 0 : 1;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser args;
    args.addPositionalArgument(QStringLiteral("mode"), QStringLiteral("empty, or 'client'"));
    const auto opt = [&](const char *name, const char *def) {
        args.addOption({QString::fromLatin1(name), QString::fromLatin1(name),
                        QStringLiteral("value"), QString::fromLatin1(def)});
    };
    opt("agents", "10");
    opt("clients", "50");
    opt("rate", "1000");
    opt("seconds", "10");
    opt("procs", "2");
    opt("out", "");
    opt("url", "");
    opt("finals", "1");
    opt("timeout", "120");
    args.process(app);
    if (args.positionalArguments().value(0) == QLatin1String("client"))
        return runClients(QUrl(args.value(QStringLiteral("url"))),
                          args.value(QStringLiteral("clients")).toInt(),
                          args.value(QStringLiteral("finals")).toInt(),
                          args.value(QStringLiteral("timeout")).toInt());
    return runDriver(args, QCoreApplication::applicationFilePath());
}
