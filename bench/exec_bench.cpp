// POST /api/exec with a large output streamed to many WebSocket clients, end to end against a real
// flotillad child process (so its memory is measured alone).
//
//   bench_exec [--flotillad PATH] [--clients 50] [--runs 3] [--command "seq 1 1000000"]
//              [--results FILE.json]
//
// Per run: a fresh flotillad (own temp HOME and data dir, port 0), one agent, N clients connected
// and synced; then the clock starts and one POST /api/exec is sent. Measured: time to the REST
// answer, time until every client has its exec_task_completed, flotillad's peak RSS (VmHWM of the
// run, startup included), and per client how many exec_task_output events and bytes arrived.
// Client 0 decodes every event and checks the streamed text against the REST answer's tail and
// the expected length; the others only count (they share the 2 CPUs with the service).

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QWebSocket>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace {

QString s(const char *utf8) {
    return QString::fromUtf8(utf8);
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

// kB from /proc/<pid>/status ("VmRSS", "VmHWM").
qint64 procStatusKb(qint64 pid, const char *field) {
    QFile f(pid > 0 ? s("/proc/%1/status").arg(pid) : s("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

struct Series {
    QList<double> v;
    QJsonObject json() const {
        QList<double> x = v;
        std::sort(x.begin(), x.end());
        return {{s("min"), x.value(0)},
                {s("median"), x.isEmpty() ? 0 : x[x.size() / 2]},
                {s("max"), x.value(x.size() - 1)},
                {s("n"), int(x.size())}};
    }
    QString text(const char *unit, int decimals) const {
        const QJsonObject o = json();
        return s("%1 / %2 / %3 %4")
            .arg(o.value(s("min")).toDouble(), 0, 'f', decimals)
            .arg(o.value(s("median")).toDouble(), 0, 'f', decimals)
            .arg(o.value(s("max")).toDouble(), 0, 'f', decimals)
            .arg(s(unit));
    }
};

struct Client {
    std::unique_ptr<QWebSocket> ws = std::make_unique<QWebSocket>();
    bool synced = false;
    bool decode = false;
    int outputEvents = 0;
    qint64 outputFrameBytes = 0; // UTF-16 code units of the whole event (all clients)
    qint64 outputTextBytes = 0;  // characters of the decoded `output` fields (client 0)
    QString tail;                // the last characters streamed (client 0)
    int completions = 0;
    double completedAtMs = -1;
};

struct RunResult {
    double restMs = 0;
    double allCompletedMs = 0;
    double peakRssMiB = 0;
    double idleRssMiB = 0; // flotillad with the clients connected, before the command
    int clientsCompleted = 0;
    int minEvents = 0, maxEvents = 0;
    qint64 streamedChars = 0;
    bool tailMatches = false;
    bool restTruncated = false;
    qint64 restOutputChars = 0;
};

QByteArray post(QNetworkAccessManager &nam, const QUrl &url, const QJsonObject &body, int *status,
                int timeoutMs) {
    QNetworkRequest req(url);
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = nam.post(req, QJsonDocument(body).toJson(QJsonDocument::Compact));
    waitUntil([reply] { return reply->isFinished(); }, timeoutMs);
    *status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QByteArray bytes = reply->readAll();
    reply->deleteLater();
    return bytes;
}

std::optional<RunResult> runOnce(const QString &flotillad, int clientCount,
                                 const QString &command) {
    QTemporaryDir home;
    QProcess service;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(s("HOME"), home.path());
    env.remove(s("AUTH_TOKEN"));
    env.remove(s("FLOTILLA_PORT"));
    env.insert(s("QT_LOGGING_RULES"), s("flotilla.*.info=false"));
    service.setProcessEnvironment(env);
    service.start(flotillad, {s("--port"), s("0"), s("--data-dir"), home.path() + s("/data")});
    QByteArray err;
    quint16 port = 0;
    waitUntil(
        [&] {
            err += service.readAllStandardError();
            const qsizetype at = err.indexOf("listening on ");
            const qsizetype nl = at < 0 ? -1 : err.indexOf('\n', at);
            if (nl > 0)
                port = quint16(err.mid(err.lastIndexOf(':', nl) + 1, nl).trimmed().toUInt());
            return port != 0 || service.state() == QProcess::NotRunning;
        },
        10000);
    if (port == 0) {
        std::fprintf(stderr, "flotillad did not start: %s\n", err.constData());
        return std::nullopt;
    }
    const QString base = s("http://127.0.0.1:%1").arg(port);
    QNetworkAccessManager nam;
    int status = 0;
    const QJsonObject agent =
        QJsonDocument::fromJson(post(nam, QUrl(base + s("/api/agents")),
                                     {{s("name"), s("bench")}, {s("cwd"), home.path()}}, &status,
                                     10000))
            .object();
    if (status != 201)
        return std::nullopt;

    std::vector<Client> clients(static_cast<size_t>(clientCount));
    QElapsedTimer clock;
    for (size_t i = 0; i < clients.size(); ++i) {
        Client &c = clients[i];
        c.decode = i == 0;
        c.ws->setMaxAllowedIncomingMessageSize(64 * 1024 * 1024);
        QObject::connect(
            c.ws.get(), &QWebSocket::textMessageReceived, c.ws.get(),
            [&c, &clock](const QString &text) {
                // Keys are serialised sorted: "type" is the last member.
                if (text.endsWith(QLatin1String("\"type\":\"exec_task_output\"}"))) {
                    ++c.outputEvents;
                    c.outputFrameBytes += text.size();
                    if (c.decode) {
                        const QString out = QJsonDocument::fromJson(text.toUtf8())
                                                .object()
                                                .value(s("payload"))
                                                .toObject()
                                                .value(s("output"))
                                                .toString();
                        c.outputTextBytes += out.size();
                        c.tail = QString(c.tail + out).right(1024);
                    }
                } else if (text.endsWith(QLatin1String("\"type\":\"exec_task_completed\"}"))) {
                    ++c.completions;
                    c.completedAtMs = clock.isValid() ? double(clock.nsecsElapsed()) / 1e6 : -1;
                } else if (text.endsWith(QLatin1String("\"type\":\"work_plans_update\"}"))) {
                    c.synced = true;
                }
            });
        c.ws->open(QUrl(s("ws://127.0.0.1:%1/ws").arg(port)));
    }
    if (!waitUntil(
            [&] {
                return std::all_of(clients.begin(), clients.end(),
                                   [](const Client &c) { return c.synced; });
            },
            20000)) {
        std::fprintf(stderr, "clients did not connect\n");
        return std::nullopt;
    }

    RunResult r;
    r.idleRssMiB = double(procStatusKb(service.processId(), "VmRSS:")) / 1024.0;
    clock.start();
    QNetworkRequest req(QUrl(base + s("/api/exec")));
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    QNetworkReply *reply = nam.post(
        req,
        QJsonDocument(QJsonObject{{s("agentId"), agent.value(s("id"))}, {s("command"), command}})
            .toJson(QJsonDocument::Compact));
    QObject::connect(reply, &QNetworkReply::finished, reply,
                     [&r, &clock] { r.restMs = double(clock.nsecsElapsed()) / 1e6; });
    const bool allDone = waitUntil(
        [&] {
            return reply->isFinished() &&
                   std::all_of(clients.begin(), clients.end(),
                               [](const Client &c) { return c.completions > 0; });
        },
        60000);
    // From the clients' own arrival times: waitUntil looks only every 20 ms.
    r.allCompletedMs = 0;
    for (const Client &c : clients)
        r.allCompletedMs = std::max(r.allCompletedMs, c.completedAtMs);
    if (!allDone)
        std::fprintf(stderr, "not every client saw the completion within 60 s\n");
    const QJsonObject result = QJsonDocument::fromJson(reply->readAll()).object();
    const QString restOutput = result.value(s("output")).toString();
    r.restTruncated = result.value(s("truncated")).toBool();
    r.restOutputChars = restOutput.size();
    r.peakRssMiB = double(procStatusKb(service.processId(), "VmHWM:")) / 1024.0;
    r.minEvents = r.maxEvents = clients.front().outputEvents;
    for (const Client &c : clients) {
        r.clientsCompleted += c.completions > 0;
        r.minEvents = std::min(r.minEvents, c.outputEvents);
        r.maxEvents = std::max(r.maxEvents, c.outputEvents);
    }
    r.streamedChars = clients.front().outputTextBytes;
    r.tailMatches = restOutput.endsWith(clients.front().tail);
    reply->deleteLater();

    for (Client &c : clients)
        c.ws->close();
    service.terminate();
    if (!service.waitForFinished(10000))
        service.kill();
    return r;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption binary(s("flotillad"), s("flotillad to run."), s("path"),
                                    s(FLOTILLAD_PATH));
    const QCommandLineOption clientsOpt(s("clients"), s("WebSocket clients."), s("n"), s("50"));
    const QCommandLineOption runsOpt(s("runs"), s("Runs."), s("n"), s("3"));
    const QCommandLineOption commandOpt(s("command"), s("Command to run."), s("text"),
                                        s("seq 1 1000000"));
    const QCommandLineOption resultsOpt(s("results"), s("Write a JSON summary here."), s("file"));
    p.addOptions({binary, clientsOpt, runsOpt, commandOpt, resultsOpt});
    p.process(app);
    const int clients = p.value(clientsOpt).toInt();
    const int runs = p.value(runsOpt).toInt();

    Series rest, all, rss, idle;
    QJsonArray perRun;
    bool ok = true;
    for (int i = 0; i < runs; ++i) {
        const auto r = runOnce(p.value(binary), clients, p.value(commandOpt));
        if (!r)
            return 1;
        rest.v.append(r->restMs);
        all.v.append(r->allCompletedMs);
        rss.v.append(r->peakRssMiB);
        idle.v.append(r->idleRssMiB);
        ok = ok && r->clientsCompleted == clients && r->tailMatches;
        std::printf("run %d: REST answer %.0f ms, all %d clients completed %.0f ms, flotillad peak "
                    "RSS %.1f MiB (%.1f MiB before the command); %d/%d clients got the completion; "
                    "output events per client "
                    "%d..%d; client 0 streamed %lld chars, tail matches REST: %s; REST output %lld "
                    "chars, truncated: %s\n",
                    i + 1, r->restMs, clients, r->allCompletedMs, r->peakRssMiB, r->idleRssMiB,
                    r->clientsCompleted, clients, r->minEvents, r->maxEvents,
                    static_cast<long long>(r->streamedChars), r->tailMatches ? "yes" : "no",
                    static_cast<long long>(r->restOutputChars), r->restTruncated ? "yes" : "no");
        perRun.append(QJsonObject{{s("restMs"), r->restMs},
                                  {s("allCompletedMs"), r->allCompletedMs},
                                  {s("peakRssMiB"), r->peakRssMiB},
                                  {s("idleRssMiB"), r->idleRssMiB},
                                  {s("clientsCompleted"), r->clientsCompleted},
                                  {s("minOutputEvents"), r->minEvents},
                                  {s("maxOutputEvents"), r->maxEvents},
                                  {s("client0StreamedChars"), r->streamedChars},
                                  {s("tailMatches"), r->tailMatches}});
    }
    std::printf("REST answer (min/median/max): %s\n", qPrintable(rest.text("ms", 0)));
    std::printf("all clients completed:        %s\n", qPrintable(all.text("ms", 0)));
    std::printf("flotillad peak RSS:           %s\n", qPrintable(rss.text("MiB", 1)));
    std::printf("flotillad RSS before command: %s\n", qPrintable(idle.text("MiB", 1)));
    std::printf("bench process peak RSS:       %.1f MiB\n",
                double(procStatusKb(0, "VmHWM:")) / 1024.0);
    if (p.isSet(resultsOpt)) {
        QFile out(p.value(resultsOpt));
        if (out.open(QIODevice::WriteOnly)) {
            out.write(
                QJsonDocument(
                    QJsonObject{{s("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                                {s("command"), p.value(commandOpt)},
                                {s("clients"), clients},
                                {s("restMs"), rest.json()},
                                {s("allCompletedMs"), all.json()},
                                {s("peakRssMiB"), rss.json()},
                                {s("idleRssMiB"), idle.json()},
                                {s("runs"), perRun}})
                    .toJson());
        }
    }
    return ok ? 0 : 3;
}
