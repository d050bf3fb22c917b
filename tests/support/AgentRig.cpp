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

void addProviderRows() {
    QTest::addColumn<QString>("provider");
    for (const QString &p : agentProviders())
        QTest::newRow(qPrintable(p)) << p;
}

AgentRig::AgentRig(const std::function<void(ServerConfig &)> &tweak)
    : AgentRig(QStringLiteral("claude"), tweak) {
}

AgentRig::AgentRig(const QString &provider, const std::function<void(ServerConfig &)> &tweak)
    : m_tweak(tweak) {
    Q_ASSERT(agentProviders().contains(provider));
    m_model = provider == QLatin1String("codex") ? scriptedModel(openai) : scriptedModel(mock);
}

bool AgentRig::start() {
    if (!(isCodex() ? openai.start() : mock.start()))
        return false;
    svc = std::make_unique<TestService>([this](ServerConfig &c) {
        home = c.dataDir + QStringLiteral("/../home");
        QDir().mkpath(home);
        home = QDir(home).canonicalPath();
        c.claudeBin = MockAnthropic::claudeBinary();
        c.claudeHome = home + QStringLiteral("/.claude");
        if (isCodex()) {
            c.agentEnvironment = openai.codexEnvironment(home);
            c.codexBin = MockOpenAI::codexBinary();
            c.codexHome = home + QStringLiteral("/.codex");
        } else {
            c.agentEnvironment = mock.claudeEnvironment(home);
        }
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
    const HttpResponse r = createAgent(QStringLiteral("agent-1"));
    agentId = r.object().value(QStringLiteral("id")).toString();
    return r.status == 201;
}

HttpResponse AgentRig::createAgent(const QString &name, const QJsonObject &fields) {
    QJsonObject body{{QStringLiteral("name"), name}, {QStringLiteral("cwd"), cwd}};
    if (isCodex()) {
        body.insert(QStringLiteral("provider"), QStringLiteral("codex"));
        body.insert(QStringLiteral("model"), QStringLiteral("gpt-mock"));
    }
    for (auto it = fields.begin(); it != fields.end(); ++it)
        body.insert(it.key(), it.value());
    return http.post(svc->url(QStringLiteral("/api/agents")), body);
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
