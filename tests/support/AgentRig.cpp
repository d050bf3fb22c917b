#include "support/AgentRig.h"

#include <QTest>

namespace flotilla::test {

namespace {
QString payloadAgent(const QJsonObject &msg) {
    return msg.value(QLatin1String("payload"))
        .toObject()
        .value(QLatin1String("agentId"))
        .toString();
}
} // namespace

AgentRig::AgentRig(const std::function<void(ServerConfig &)> &tweak)
    : m_tweak(tweak) {
}

bool AgentRig::start() {
    if (!mock.start())
        return false;
    svc = std::make_unique<TestService>([this](ServerConfig &c) {
        home = c.dataDir + QStringLiteral("/../home");
        QDir().mkpath(home);
        home = QDir(home).canonicalPath();
        c.claudeBin = MockAnthropic::claudeBinary();
        c.claudeHome = home + QStringLiteral("/.claude");
        c.agentEnvironment = mock.claudeEnvironment(home);
        if (m_tweak)
            m_tweak(c);
        token = c.authToken;
    });
    if (!svc->start())
        return false;
    http.setToken(token);
    ws = std::make_unique<WsClient>();
    if (!ws->open(wsUrl()) || !ws->waitFor(QStringLiteral("work_plans_update")))
        return false;
    cwd = svc->workDir() + QStringLiteral("/project");
    QDir().mkpath(cwd);
    const HttpResponse r =
        http.post(svc->url(QStringLiteral("/api/agents")),
                  QJsonObject{{QStringLiteral("name"), QStringLiteral("agent-1")},
                              {QStringLiteral("cwd"), cwd}});
    agentId = r.object().value(QStringLiteral("id")).toString();
    return r.status == 201;
}

bool AgentRig::restartService() {
    svc->stop();
    ws.reset();
    if (!svc->start())
        return false;
    ws = std::make_unique<WsClient>();
    return ws->open(wsUrl()) && ws->waitFor(QStringLiteral("work_plans_update"));
}

QUrl AgentRig::wsUrl() const {
    return token.isEmpty() ? svc->wsUrl()
                           : svc->wsUrl(QStringLiteral("/ws?token=") + QString::fromUtf8(token));
}

HttpResponse AgentRig::send(const QString &message, const QString &agentId_) {
    const QString id = agentId_.isEmpty() ? agentId : agentId_;
    return http.post(svc->url(QStringLiteral("/api/agents/%1/message").arg(id)),
                     QJsonObject{{QStringLiteral("message"), message}});
}

QJsonObject AgentRig::agent(const QString &agentId_) {
    return http
        .get(svc->url(QStringLiteral("/api/agents/") + (agentId_.isEmpty() ? agentId : agentId_)))
        .object();
}

QList<QJsonObject> AgentRig::chunks(const QString &agentId_) const {
    const QString id = agentId_.isEmpty() ? agentId : agentId_;
    QList<QJsonObject> out;
    for (const QJsonObject &m : ws->ofType(QStringLiteral("output"))) {
        if (payloadAgent(m) == id)
            out.append(m.value(QLatin1String("payload")).toObject());
    }
    return out;
}

bool AgentRig::waitTurns(int n, int timeoutMs, const QString &agentId_) {
    return QTest::qWaitFor(
        [&] {
            int finals = 0;
            for (const QJsonObject &c : chunks(agentId_))
                finals += !c.value(QLatin1String("isStreaming")).toBool();
            return finals >= n;
        },
        timeoutMs);
}

QString AgentRig::streamedText(const QString &agentId_) const {
    QString text;
    for (const QJsonObject &c : chunks(agentId_))
        text += c.value(QLatin1String("text")).toString();
    return text;
}

QList<QJsonObject> AgentRig::updates(const QString &agentId_) const {
    const QString id = agentId_.isEmpty() ? agentId : agentId_;
    QList<QJsonObject> out;
    for (const QJsonObject &m : ws->ofType(QStringLiteral("agent_updated"))) {
        const QJsonObject p = m.value(QLatin1String("payload")).toObject();
        if (p.value(QLatin1String("id")).toString() == id)
            out.append(p);
    }
    return out;
}

bool AgentRig::waitStatus(const QString &status, int timeoutMs, const QString &agentId_) {
    return QTest::qWaitFor(
        [&] { return agent(agentId_).value(QLatin1String("status")).toString() == status; },
        timeoutMs);
}

} // namespace flotilla::test
