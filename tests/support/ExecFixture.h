#pragma once
// What the exec suites (tst_exec, tst_secrets) share: the real service in-process, a REST client,
// a WebSocket client, one agent, and POST /api/exec both blocking and in flight. Header-only and
// without Q_OBJECT, so it needs no entry in the support library.

#include "protocol/ExecNames.h"
#include "support/HttpClient.h"
#include "support/TestService.h"
#include "support/WsClient.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTest>

#include <memory>

namespace flotilla::test {

namespace xk = wire::exec::key;
namespace xm = wire::exec::msg;

// An exec request still waiting for its answer. Each has its own QNetworkAccessManager: one
// manager runs at most 6 requests per host and would queue the rest.
struct PendingExec {
    std::unique_ptr<QNetworkAccessManager> nam = std::make_unique<QNetworkAccessManager>();
    QNetworkReply *reply = nullptr;

    bool isFinished() const { return reply && reply->isFinished(); }
    // Waits for the answer (event loop spinning): status 0 on timeout.
    HttpResponse wait(int timeoutMs = 15000) {
        HttpResponse r;
        if (!QTest::qWaitFor([this] { return isFinished(); }, timeoutMs))
            return r;
        r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        r.body = reply->readAll();
        return r;
    }
};

// True while a live (not zombie) process of group `pgid` exists. Zombies are skipped: whether
// they are reaped quickly depends on the init of the machine, not on flotillad.
inline bool groupAlive(qint64 pgid) {
    const QStringList pids = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &pid : pids) {
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        const QList<QByteArray> f = line.mid(line.lastIndexOf(')') + 2).split(' ');
        if (f.size() > 2 && f.at(2).toLongLong() == pgid && f.at(0) != "Z")
            return true;
    }
    return false;
}

inline bool processAlive(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    return line.mid(line.lastIndexOf(')') + 2, 1) != "Z";
}

class ExecFixture final {
public:
    std::unique_ptr<TestService> svc;
    std::unique_ptr<HttpClient> http;
    std::unique_ptr<WsClient> ws;
    QString agentId;

    bool start() {
        svc = std::make_unique<TestService>();
        http = std::make_unique<HttpClient>();
        if (!svc->start())
            return false;
        agentId = createAgent(QStringLiteral("runner"));
        return !agentId.isEmpty() && connectWs();
    }
    bool restart() {
        ws.reset();
        svc->stop();
        return svc->start() && connectWs();
    }
    void reset() {
        ws.reset();
        http.reset();
        svc.reset();
    }
    QString dataDir() const { return svc->config().dataDir; } // also while stopped

    QUrl url(const QString &path) const { return svc->url(path); }
    HttpResponse get(const QString &path) { return http->get(url(path)); }
    HttpResponse del(const QString &path) { return http->del(url(path)); }
    HttpResponse put(const QString &path, const QJsonObject &body) {
        return http->send("PUT", url(path), QJsonDocument(body).toJson(QJsonDocument::Compact));
    }
    HttpResponse putSecret(const QString &name, const QString &value) {
        return put(QStringLiteral("/api/secrets/") + name, QJsonObject{{xk::Value, value}});
    }

    QString createAgent(const QString &name) {
        const HttpResponse r = http->post(
            url(QStringLiteral("/api/agents")),
            QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("cwd"), svc->workDir()}});
        return r.object().value(QStringLiteral("id")).toString();
    }

    QJsonObject body(const QString &command, const QJsonObject &extra = {}) const {
        QJsonObject b = extra;
        b.insert(QStringLiteral("agentId"), agentId);
        b.insert(xk::Command, command);
        return b;
    }
    // POST /api/exec and wait for the answer.
    HttpResponse exec(const QString &command, const QJsonObject &extra = {},
                      int timeoutMs = 15000) {
        return http->send("POST", url(QStringLiteral("/api/exec")),
                          QJsonDocument(body(command, extra)).toJson(QJsonDocument::Compact), {},
                          timeoutMs);
    }
    // POST /api/exec without waiting.
    std::unique_ptr<PendingExec> execAsync(const QJsonObject &b) {
        auto p = std::make_unique<PendingExec>();
        QNetworkRequest req(url(QStringLiteral("/api/exec")));
        req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        p->reply = p->nam->post(req, QJsonDocument(b).toJson(QJsonDocument::Compact));
        return p;
    }

    // Event payloads of one task, in arrival order, optionally of one type.
    QList<QJsonObject> events(const QString &taskId, const QString &type = {}) const {
        QList<QJsonObject> out;
        for (const QJsonObject &m : ws->messages()) {
            const QString t = m.value(QStringLiteral("type")).toString();
            const QJsonObject p = m.value(QStringLiteral("payload")).toObject();
            if (t.startsWith(QStringLiteral("exec_task_")) &&
                p.value(xk::TaskId).toString() == taskId && (type.isEmpty() || t == type)) {
                QJsonObject e = p;
                e.insert(QStringLiteral("@type"), t);
                out.append(e);
            }
        }
        return out;
    }
    // The output of one task's events, one stream or both.
    QString streamed(const QString &taskId, int isError = -1) const {
        QString all;
        for (const QJsonObject &e : events(taskId, xm::ExecTaskOutput)) {
            if (isError < 0 || e.value(xk::IsError).toBool() == bool(isError))
                all += e.value(xk::Output).toString();
        }
        return all;
    }
    bool waitCompleted(const QString &taskId, int timeoutMs = 15000) const {
        return QTest::qWaitFor([&] { return !events(taskId, xm::ExecTaskCompleted).isEmpty(); },
                               timeoutMs);
    }
    // The task id of the n-th exec_task_started seen (waits for it).
    QString startedTask(int n = 0, int timeoutMs = 10000) const {
        if (!ws->waitFor(xm::ExecTaskStarted, n + 1, timeoutMs))
            return {};
        return ws->ofType(xm::ExecTaskStarted)
            .at(n)
            .value(QStringLiteral("payload"))
            .toObject()
            .value(xk::TaskId)
            .toString();
    }

private:
    bool connectWs() {
        ws = std::make_unique<WsClient>();
        return ws->open(svc->wsUrl()) && ws->waitFor(QStringLiteral("work_plans_update"));
    }
};

} // namespace flotilla::test
