// What an agent's MCP tool call costs against the same change through REST, end to end against a
// real flotillad child process (its own temp HOME and data dir, the service token set).
//
//   bench_mcp [--flotillad PATH] [--rate 1000] [--seconds 10] [--runs 1] [--results FILE.json]
//
// Per run: a fresh flotillad and one agent. MCP: initialize, notifications/initialized with the
// Mcp-Session-Id, then `tools/call` of set_status ({agentId, taskLabel: "x<n>"}, the service
// token) paced at --rate calls/s for --seconds over one keep-alive connection. REST: the same
// pace of the equivalent `PATCH /api/agents/:id {"taskLabel": ...}` on a connection of its own.
// Both change the same agent the same way (one SQLite commit each), so the difference is the MCP
// layer: JSON-RPC, the session, the tool's validation and its call of the REST route. Then the
// same for a read, `get_agent` against `GET /api/agents/:id`: no commit, the layer alone.
//
// A call is sent at its scheduled time, or at once when the one before it answered late (one
// connection, one call in flight). Latency: request written to answer read, by this process's
// steady clock. "late" counts calls sent more than 1 ms after their time: a pace the service did
// not keep. The client is a blocking socket with no event loop, to add as little as it can.

#include "BenchSupport.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QUuid>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iterator>
#include <optional>
#include <thread>
#include <utility>

using namespace flotilla::bench;
using Clock = std::chrono::steady_clock;

namespace {

QString s(const char *utf8) {
    return QString::fromUtf8(utf8);
}

struct Answer {
    int status = 0;
    QByteArray sessionId; // Mcp-Session-Id, when sent
    QByteArray body;
};

// HTTP/1.1 on one keep-alive connection, blocking: write a request, read its whole answer.
class Connection {
public:
    Connection(quint16 port, QByteArray token)
        : m_token(std::move(token)) {
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
        m_socket.setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_ok = m_socket.waitForConnected(5000);
    }
    bool ok() const { return m_ok; }

    std::optional<Answer> send(const QByteArray &method, const QByteArray &path,
                               const QByteArray &body, const QByteArray &sessionId = {}) {
        QByteArray req = method + ' ' + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                         "X-Auth-Token: " + m_token + "\r\n" +
                         "Content-Type: application/json\r\n" +
                         "Accept: application/json, text/event-stream\r\n" +
                         "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
        if (!sessionId.isEmpty())
            req += "Mcp-Session-Id: " + sessionId + "\r\nMCP-Protocol-Version: 2025-06-18\r\n";
        req += "\r\n" + body;
        if (m_socket.write(req) != req.size() || !m_socket.waitForBytesWritten(5000))
            return std::nullopt;
        return readAnswer();
    }

private:
    std::optional<Answer> readAnswer() {
        Answer a;
        qsizetype headerEnd = -1;
        qsizetype length = -1;
        for (;;) {
            if (headerEnd < 0) {
                headerEnd = m_buffer.indexOf("\r\n\r\n");
                if (headerEnd >= 0 && !parseHeaders(headerEnd, &a, &length))
                    return std::nullopt;
            }
            if (headerEnd >= 0 && m_buffer.size() >= headerEnd + 4 + length) {
                a.body = m_buffer.mid(headerEnd + 4, length);
                m_buffer.remove(0, headerEnd + 4 + length);
                return a;
            }
            if (!m_socket.waitForReadyRead(10000))
                return std::nullopt;
            m_buffer += m_socket.readAll();
        }
    }

    bool parseHeaders(qsizetype end, Answer *a, qsizetype *length) const {
        const QList<QByteArray> lines = m_buffer.left(end).split('\n');
        a->status = lines.value(0).split(' ').value(1).toInt();
        *length = 0;
        for (const QByteArray &raw : lines.mid(1)) {
            const QByteArray line = raw.trimmed();
            const qsizetype colon = line.indexOf(':');
            const QByteArray name = line.left(colon).toLower();
            const QByteArray value = line.mid(colon + 1).trimmed();
            if (name == "content-length")
                *length = value.toLongLong();
            else if (name == "mcp-session-id")
                a->sessionId = value;
            else if (name == "transfer-encoding")
                return false; // flotillad sends a length; a chunked answer is not expected
        }
        return true;
    }

    QTcpSocket m_socket;
    QByteArray m_token;
    QByteArray m_buffer;
    bool m_ok = false;
};

struct Phase {
    QList<double> latencyMs;
    int failures = 0;
    int late = 0;
    double seconds = 0;
    QJsonObject json() const {
        const Stats st = stats(latencyMs);
        QList<double> sorted = latencyMs;
        std::sort(sorted.begin(), sorted.end());
        const double p99 = sorted.isEmpty() ? 0 : sorted[qsizetype(double(sorted.size()) * 0.99)];
        return {{s("calls"), int(latencyMs.size())},
                {s("p50Ms"), st.median},
                {s("p99Ms"), p99},
                {s("maxMs"), st.max},
                {s("failures"), failures},
                {s("late"), late},
                {s("achievedPerSecond"), seconds > 0 ? latencyMs.size() / seconds : 0}};
    }
};

// `calls` requests made by `request(n)` (each on its transport's one connection), paced at
// `rate` per second.
template <typename Request> Phase paced(int rate, int calls, const Request &request) {
    Phase p;
    const auto period = std::chrono::nanoseconds(1'000'000'000LL / rate);
    const Clock::time_point start = Clock::now();
    for (int n = 0; n < calls; ++n) {
        const Clock::time_point due = start + period * n;
        if (Clock::now() < due)
            std::this_thread::sleep_until(due);
        const Clock::time_point sent = Clock::now();
        if (sent - due > std::chrono::milliseconds(1))
            ++p.late;
        const bool ok = request(n);
        p.latencyMs.append(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
        p.failures += ok ? 0 : 1;
    }
    p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return p;
}

QByteArray rpc(int id, const char *method, const QJsonObject &params) {
    QJsonObject o{{s("jsonrpc"), s("2.0")}, {s("method"), s(method)}, {s("params"), params}};
    if (id >= 0)
        o.insert(s("id"), id);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// The four paced phases, in the order they run: the write pair the target is about, then a read
// pair (no SQLite commit) that shows the MCP layer's own cost without the disk's.
struct PhaseName {
    const char *key;
    const char *label;
};
constexpr PhaseName kPhases[] = {{"mcpWrite", "MCP tools/call set_status"},
                                 {"restWrite", "REST PATCH /api/agents/:id"},
                                 {"mcpRead", "MCP tools/call get_agent"},
                                 {"restRead", "REST GET /api/agents/:id"}};
constexpr int kPhaseCount = int(std::size(kPhases));

struct RunResult {
    Phase phases[kPhaseCount];
    double peakRssMiB = 0;
};

qint64 vmHwmKiB(qint64 pid) {
    QFile f(s("/proc/%1/status").arg(pid));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : f.readAll().split('\n')) {
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

std::optional<RunResult> runOnce(const QString &flotillad, int rate, int seconds) {
    QTemporaryDir home;
    const QByteArray token = QUuid::createUuid().toByteArray(QUuid::WithoutBraces);
    QProcess service;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Agents unconfined, as these numbers have always been taken (bench_sandbox measures the
    // sandbox).
    env.insert(QStringLiteral("FLOTILLA_SANDBOX_DEFAULT"), QStringLiteral("off"));
    env.insert(s("HOME"), home.path());
    env.insert(s("AUTH_TOKEN"), QString::fromLatin1(token));
    env.remove(s("FLOTILLA_PORT"));
    env.insert(s("QT_LOGGING_RULES"), s("flotilla.*.info=false"));
    service.setProcessEnvironment(env);
    service.start(flotillad, {s("--port"), s("0"), s("--data-dir"), home.path() + s("/data")});
    QByteArray err;
    quint16 port = 0;
    QElapsedTimer waited;
    waited.start();
    while (port == 0 && service.state() != QProcess::NotRunning && waited.elapsed() < 10000) {
        service.waitForReadyRead(100);
        err += service.readAllStandardError();
        const qsizetype at = err.indexOf("listening on ");
        const qsizetype nl = at < 0 ? -1 : err.indexOf('\n', at);
        if (nl > 0)
            port = quint16(err.mid(err.lastIndexOf(':', nl) + 1, nl).trimmed().toUInt());
    }
    if (port == 0) {
        std::fprintf(stderr, "flotillad did not start: %s\n", err.constData());
        return std::nullopt;
    }
    const auto fail = [&](const char *what, const std::optional<Answer> &a) {
        std::fprintf(stderr, "%s: HTTP %d %s\n", what, a ? a->status : 0,
                     a ? a->body.left(300).constData() : "(no answer)");
        service.kill();
        service.waitForFinished(5000);
        return std::nullopt;
    };

    Connection rest(port, token);
    const auto created =
        rest.send("POST", "/api/agents",
                  QJsonDocument(QJsonObject{{s("name"), s("bench")}, {s("cwd"), home.path()}})
                      .toJson(QJsonDocument::Compact));
    if (!created || created->status != 201)
        return fail("POST /api/agents", created);
    const QString agentId =
        QJsonDocument::fromJson(created->body).object().value(s("id")).toString();

    Connection mcp(port, token);
    const auto init = mcp.send(
        "POST", "/mcp",
        rpc(0, "initialize",
            {{s("protocolVersion"), s("2025-06-18")},
             {s("capabilities"), QJsonObject()},
             {s("clientInfo"), QJsonObject{{s("name"), s("bench_mcp")}, {s("version"), s("1")}}}}));
    if (!init || init->status != 200 || init->sessionId.isEmpty())
        return fail("initialize", init);
    const QByteArray session = init->sessionId;
    const auto initialized =
        mcp.send("POST", "/mcp", rpc(-1, "notifications/initialized", {}), session);
    if (!initialized || initialized->status != 202)
        return fail("notifications/initialized", initialized);

    const QByteArray agentPath = "/api/agents/" + agentId.toUtf8();
    const auto callMcp = [&](int n) {
        const auto a =
            mcp.send("POST", "/mcp",
                     rpc(n + 1, "tools/call",
                         {{s("name"), s("set_status")},
                          {s("arguments"), QJsonObject{{s("agentId"), agentId},
                                                       {s("taskLabel"), s("x%1").arg(n)}}}}),
                     session);
        // A tool's failure is a result with isError; a protocol one an `error` member.
        return a && a->status == 200 && a->body.contains("\"result\"") &&
               !a->body.contains("\"isError\":true");
    };
    const auto callRest = [&](int n) {
        const auto a = rest.send("PATCH", agentPath,
                                 QJsonDocument(QJsonObject{{s("taskLabel"), s("y%1").arg(n)}})
                                     .toJson(QJsonDocument::Compact));
        return a && a->status == 200;
    };
    const auto readMcp = [&](int n) {
        const auto a = mcp.send("POST", "/mcp",
                                rpc(n + 1, "tools/call",
                                    {{s("name"), s("get_agent")},
                                     {s("arguments"), QJsonObject{{s("agentId"), agentId}}}}),
                                session);
        return a && a->status == 200 && a->body.contains("\"result\"") &&
               !a->body.contains("\"isError\":true");
    };
    const auto readRest = [&](int) {
        const auto a = rest.send("GET", agentPath, {});
        return a && a->status == 200;
    };
    const std::function<bool(int)> calls[kPhaseCount] = {callMcp, callRest, readMcp, readRest};
    // Warm-up, not counted: the first calls allocate, open and page in what the rest reuse.
    for (int n = 0; n < 200; ++n) {
        for (const auto &call : calls) {
            if (!call(n))
                return fail("warm-up call", std::nullopt);
        }
    }
    RunResult r;
    for (int i = 0; i < kPhaseCount; ++i)
        r.phases[i] = paced(rate, rate * seconds, calls[i]);
    r.peakRssMiB = double(vmHwmKiB(service.processId())) / 1024.0;
    service.terminate();
    if (!service.waitForFinished(10000))
        service.kill();
    return r;
}

QString line(const char *name, const Phase &p) {
    const QJsonObject o = p.json();
    return s("%1: %2 calls in %3 s (%4/s): p50 %5 ms, p99 %6 ms, max %7 ms; %8 failed, %9 late")
        .arg(s(name))
        .arg(o.value(s("calls")).toInt())
        .arg(p.seconds, 0, 'f', 2)
        .arg(o.value(s("achievedPerSecond")).toDouble(), 0, 'f', 1)
        .arg(o.value(s("p50Ms")).toDouble(), 0, 'f', 3)
        .arg(o.value(s("p99Ms")).toDouble(), 0, 'f', 3)
        .arg(o.value(s("maxMs")).toDouble(), 0, 'f', 3)
        .arg(p.failures)
        .arg(p.late);
}

QString over(const QList<QJsonObject> &runs, const char *key) {
    QList<double> v;
    for (const QJsonObject &o : runs)
        v.append(o.value(s(key)).toDouble());
    const Stats st = stats(v);
    return s("%1 / %2 / %3")
        .arg(st.min, 0, 'f', 3)
        .arg(st.median, 0, 'f', 3)
        .arg(st.max, 0, 'f', 3);
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption binary(s("flotillad"), s("flotillad to run."), s("path"),
                                    s(FLOTILLAD_PATH));
    const QCommandLineOption rateOpt(s("rate"), s("Calls per second."), s("n"), s("1000"));
    const QCommandLineOption secondsOpt(s("seconds"), s("Seconds per transport."), s("n"), s("10"));
    const QCommandLineOption runsOpt(s("runs"), s("Runs, each a fresh flotillad."), s("n"), s("1"));
    const QCommandLineOption resultsOpt(s("results"), s("Write a JSON summary here."), s("file"));
    p.addOptions({binary, rateOpt, secondsOpt, runsOpt, resultsOpt});
    p.process(app);
    const int rate = std::max(1, p.value(rateOpt).toInt());
    const int seconds = std::max(1, p.value(secondsOpt).toInt());
    const int runs = std::max(1, p.value(runsOpt).toInt());

    QList<QJsonObject> byPhase[kPhaseCount];
    QJsonArray perRun;
    bool ok = true;
    for (int i = 0; i < runs; ++i) {
        const auto r = runOnce(p.value(binary), rate, seconds);
        if (!r)
            return 1;
        QJsonObject run{{s("peakRssMiB"), r->peakRssMiB}};
        std::printf("run %d (flotillad peak RSS %.1f MiB):\n", i + 1, r->peakRssMiB);
        for (int k = 0; k < kPhaseCount; ++k) {
            ok = ok && r->phases[k].failures == 0;
            byPhase[k].append(r->phases[k].json());
            run.insert(s(kPhases[k].key), byPhase[k].last());
            std::printf("  %s\n", qPrintable(line(kPhases[k].label, r->phases[k])));
        }
        perRun.append(run);
        std::fflush(stdout);
    }
    std::printf("over %d run(s), min / median / max:\n", runs);
    for (int k = 0; k < kPhaseCount; ++k)
        std::printf("  %-28s p50 %s ms; p99 %s ms; max %s ms\n", kPhases[k].label,
                    qPrintable(over(byPhase[k], "p50Ms")), qPrintable(over(byPhase[k], "p99Ms")),
                    qPrintable(over(byPhase[k], "maxMs")));
    if (p.isSet(resultsOpt)) {
        QFile out(p.value(resultsOpt));
        if (out.open(QIODevice::WriteOnly))
            out.write(
                QJsonDocument(
                    QJsonObject{{s("date"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                                {s("rate"), rate},
                                {s("seconds"), seconds},
                                {s("runs"), perRun}})
                    .toJson());
    }
    return ok ? 0 : 3;
}
