#include "permissions/PermissionBroker.h"

#include "agents/AgentRuntime.h"
#include "base/Logging.h"
#include "domain/AgentRegistry.h"
#include "permissions/RuleStore.h"
#include "protocol/Envelope.h"
#include "protocol/PermissionNames.h"
#include "ws/EventHub.h"

#include <QJsonDocument>
#include <QTimer>
#include <QUuid>
#include <QWebSocket>

namespace flotilla {

namespace k = wire::key;
namespace c = wire::code;
namespace st = wire::status;
namespace pk = wire::permission::key;
namespace pm = wire::permission::msg;
namespace hk = wire::permission::hook;
namespace mode = wire::permission::mode;
namespace by = wire::permission::by;
namespace pv = wire::permission::via;

namespace {
constexpr qsizetype kMaxRememberedToolUses = 1000;

QString toolKey(const QString &agentId, const QJsonObject &hookInput) {
    return agentId + QLatin1Char('\n') + hookInput.value(hk::ToolName).toString() +
           QLatin1Char('\n') +
           QString::fromUtf8(QJsonDocument(hookInput.value(hk::ToolInput).toObject())
                                 .toJson(QJsonDocument::Compact));
}

// The hook's stdout, as the CLI reads it (verified with 2.1.329). `decision`: allow or deny.
QJsonObject preToolUseDecision(const QString &decision, const QString &reason) {
    return QJsonObject{{QStringLiteral("hookSpecificOutput"),
                        QJsonObject{{QStringLiteral("hookEventName"), hk::PreToolUse},
                                    {QStringLiteral("permissionDecision"), decision},
                                    {QStringLiteral("permissionDecisionReason"), reason}}}};
}

QJsonObject permissionRequestDecision(bool granted, const QString &reason) {
    QJsonObject decision{
        {QStringLiteral("behavior"), granted ? QStringLiteral("allow") : QStringLiteral("deny")}};
    if (!granted)
        decision.insert(QStringLiteral("message"), reason);
    return QJsonObject{{QStringLiteral("hookSpecificOutput"),
                        QJsonObject{{QStringLiteral("hookEventName"), hk::PermissionRequest},
                                    {QStringLiteral("decision"), decision}}}};
}
} // namespace

PermissionBroker::PermissionBroker(AgentRegistry &agents, AgentRuntime &runtime, EventHub &hub,
                                   RuleStore &rules, Clock clock, int timeoutMs,
                                   ProtectedPaths protectedPaths, Masker mask, QObject *parent)
    : QObject(parent)
    , m_agents(agents)
    , m_runtime(runtime)
    , m_hub(hub)
    , m_rules(rules)
    , m_clock(std::move(clock))
    , m_mask(std::move(mask))
    , m_timeoutMs(timeoutMs)
    , m_protected(std::move(protectedPaths)) {
    hub.registerIncoming(pm::Response, {{}, [this](QWebSocket *client, const QJsonObject &p) {
                                            onResponse(client, p);
                                        }});
    hub.setConnectReplayProvider([this] { return replay(); });
    connect(&runtime, &AgentRuntime::permissionRequested, this,
            &PermissionBroker::onProcessRequest);
    connect(&runtime, &AgentRuntime::stopped, this, [this](const QString &agentId) {
        denyAllOf(agentId, QStringLiteral("the agent was stopped"));
    });
    connect(&agents, &AgentRegistry::agentDeleted, this, [this](const QString &agentId) {
        denyAllOf(agentId, QStringLiteral("the agent was deleted"));
        m_rules.removeScopedTo(agentId);
        m_hookLog.forget(agentId);
    });
    connect(&rules, &RuleStore::rulesChanged, this, &PermissionBroker::applyRulesToPending);
}

PermissionBroker::~PermissionBroker() {
    for (const Pending &p : std::as_const(m_pending)) {
        logDecision(p.agentId, p.tool, p.toolInput, false, by::Stop, p.via);
        p.answer(false, QStringLiteral("the service is shutting down"));
    }
    m_pending.clear();
}

QJsonArray PermissionBroker::pendingRequests() const {
    QJsonArray out;
    for (const Pending &p : m_pending)
        out.append(p.request);
    return out;
}

RuleVerdict PermissionBroker::rulesFor(const QString &agentId, const QString &tool,
                                       const QJsonValue &toolInput) const {
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return {};
    return rules::evaluate(m_rules.rules(), RuleSubject{agentId, agent->cwd}, tool,
                           toolInput.toObject(), m_rules.toolKinds());
}

void PermissionBroker::logDecision(const QString &agentId, const QString &tool,
                                   const QJsonValue &toolInput, bool granted,
                                   QLatin1String decidedBy, QLatin1String via,
                                   const QString &ruleId) {
    int suppressed = 0;
    if (via == pv::Hook && decidedBy != by::Client && !m_hookLog.admit(agentId, &suppressed)) {
        if (suppressed == 0) // once per burst, not once per call
            qCWarning(lcAgents).noquote()
                << "agent" << agentId
                << "sends permission hook calls faster than the decision log takes them; "
                   "further entries are counted, not logged";
        return;
    }
    PermissionDecision d;
    d.via = via;
    d.suppressed = suppressed;
    d.agentId = agentId;
    const Agent *agent = m_agents.find(agentId);
    d.agentName = agent ? agent->name : QString();
    d.tool = tool;
    d.toolInput = m_mask ? m_mask(toolInput.toObject()) : toolInput.toObject();
    d.allowed = granted;
    d.by = decidedBy;
    d.ruleId = ruleId;
    d.timestamp = m_clock.nowMs();
    if (Status e = m_rules.log(d))
        qCWarning(lcAgents).noquote() << "permission decision not logged:" << e->message;
}

// Every pending request a rule now covers is answered by it (a "remember" of one agent's
// request also answers its twin of another agent that the new rule covers).
void PermissionBroker::applyRulesToPending() {
    QList<QPair<QString, RuleVerdict>> decided;
    for (const Pending &p : std::as_const(m_pending)) {
        if (p.id == m_answering)
            continue; // its user is answering it (with the rule that triggered this)
        const RuleVerdict v = rulesFor(p.agentId, p.tool, p.toolInput);
        if (v.kind != RuleVerdict::Kind::None)
            decided.append({p.id, v});
    }
    for (const auto &[id, v] : std::as_const(decided)) {
        const bool allow = v.kind == RuleVerdict::Kind::Allow;
        resolve(id, allow, allow ? QString() : QStringLiteral("denied by a standing rule"),
                by::Rule, v.ruleId);
    }
}

void PermissionBroker::answerHook(const QString &agentId, const QJsonObject &hookInput,
                                  const HookAnswer &answer) {
    const Agent *agent = m_agents.find(agentId);
    if (!agent) {
        answer(Error::notFound(c::NotFound, QStringLiteral("no agent with id '%1'").arg(agentId)));
        return;
    }
    const QString event = hookInput.value(hk::EventName).toString();
    const bool autoMode = agent->permissionMode == mode::Auto;
    if (const QString why = protectedPathNamedIn(agentId, hookInput.value(hk::ToolInput));
        !why.isEmpty()) {
        answer(event == hk::PreToolUse ? preToolUseDecision(QStringLiteral("deny"), why)
                                       : permissionRequestDecision(false, why));
        return;
    }
    const QString tool = hookInput.value(hk::ToolName).toString();
    const RuleVerdict verdict = rulesFor(agentId, tool, hookInput.value(hk::ToolInput));
    if (verdict.kind == RuleVerdict::Kind::Deny) { // in any mode, before the CLI's own rules
        logDecision(agentId, tool, hookInput.value(hk::ToolInput), false, by::Rule, pv::Hook,
                    verdict.ruleId);
        const QString why = QStringLiteral("denied by a standing permission rule");
        answer(event == hk::PreToolUse ? preToolUseDecision(QStringLiteral("deny"), why)
                                       : permissionRequestDecision(false, why));
        return;
    }
    if (event == hk::PreToolUse) {
        if (autoMode) {
            answer(
                preToolUseDecision(QStringLiteral("allow"), QStringLiteral("permissionMode auto")));
            return;
        }
        // No decision: the CLI's own rules run; if it would ask, PermissionRequest follows.
        if (m_toolUseIds.size() >= kMaxRememberedToolUses)
            m_toolUseIds.clear();
        m_toolUseIds.insert(toolKey(agentId, hookInput), hookInput.value(hk::ToolUseId).toString());
        answer(QJsonObject{});
        return;
    }
    if (event == hk::PermissionRequest) {
        if (autoMode) {
            answer(permissionRequestDecision(true, {}));
            return;
        }
        if (verdict.kind == RuleVerdict::Kind::Allow) { // where the CLI would ask
            logDecision(agentId, tool, hookInput.value(hk::ToolInput), true, by::Rule, pv::Hook,
                        verdict.ruleId);
            answer(permissionRequestDecision(true, {}));
            return;
        }
        hold(agentId, tool, hookInput.value(hk::ToolInput),
             m_toolUseIds.take(toolKey(agentId, hookInput)), pv::Hook,
             [answer](bool granted, const QString &reason) {
                 answer(permissionRequestDecision(granted, reason));
             });
        return;
    }
    answer(Error::invalid(c::InvalidValue,
                          QStringLiteral("unsupported hook_event_name '%1'").arg(event.left(60))));
}

// A CLI asking through its own process protocol (Codex's approval requests; Claude's hooks come
// through answerHook()): the decisions of a hook's PermissionRequest, answered through the runtime.
void PermissionBroker::onProcessRequest(const QString &agentId, const QString &requestId,
                                        const QString &toolName, const QJsonObject &toolInput) {
    Answer answer = [this, agentId, requestId](bool granted, const QString &reason) {
        m_runtime.answerPermission(agentId, requestId, granted, reason);
    };
    const Agent *agent = m_agents.find(agentId);
    if (!agent)
        return answer(false, QStringLiteral("the agent was deleted"));
    if (const QString why = protectedPathNamedIn(agentId, toolInput); !why.isEmpty())
        return answer(false, why);
    const RuleVerdict verdict = rulesFor(agentId, toolName, toolInput);
    if (verdict.kind == RuleVerdict::Kind::Deny) {
        logDecision(agentId, toolName, toolInput, false, by::Rule, pv::Process, verdict.ruleId);
        return answer(false, QStringLiteral("denied by a standing permission rule"));
    }
    if (agent->permissionMode == mode::Auto)
        return answer(true, {});
    if (verdict.kind == RuleVerdict::Kind::Allow) {
        logDecision(agentId, toolName, toolInput, true, by::Rule, pv::Process, verdict.ruleId);
        return answer(true, {});
    }
    hold(agentId, toolName, toolInput, QString(), pv::Process, std::move(answer));
}

// Non-empty (the reason, for the CLI) when a tool use names the service's own credentials or
// state: denied in any mode, before anyone is asked.
QString PermissionBroker::protectedPathNamedIn(const QString &agentId,
                                               const QJsonValue &toolInput) const {
    const QString named = m_protected.namedIn(toolInput);
    if (named.isEmpty())
        return {};
    qCWarning(lcAgents).noquote() << "denied a tool use of agent" << agentId << "that names"
                                  << named;
    return QStringLiteral("Flotilla denies tool uses that name its own credentials or state (%1).")
        .arg(named);
}

void PermissionBroker::hold(const QString &agentId, const QString &toolName,
                            const QJsonValue &toolInput, const QString &toolUseId,
                            QLatin1String via, Answer answer) {
    const Agent *agent = m_agents.find(agentId);
    Pending p;
    p.id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    p.agentId = agentId;
    p.tool = toolName;
    p.toolInput = toolInput.toObject();
    p.via = via;
    // What clients are shown (and replayed) never holds a secret's value or a token; the rules
    // and the CLI's answer work on the real input.
    p.request = QJsonObject{
        {k::Id, p.id},
        {k::AgentId, agentId},
        {k::AgentName, agent ? agent->name : QString()},
        {pk::Tool, toolName},
        {pk::ToolInput, m_mask ? QJsonValue(m_mask(p.toolInput)) : toolInput},
        {pk::ToolUseId, toolUseId.isEmpty() ? QJsonValue() : QJsonValue(toolUseId)},
        {k::Timestamp, m_clock.nowMs()},
    };
    p.answer = std::move(answer);
    p.timer = new QTimer(this);
    p.timer->setSingleShot(true);
    const QString id = p.id;
    connect(p.timer, &QTimer::timeout, this, [this, id] {
        resolve(id, false, QStringLiteral("no answer within %1 s").arg(m_timeoutMs / 1000),
                by::Timeout);
    });
    p.timer->start(m_timeoutMs);
    m_pending.append(p);
    setWaiting(agentId, true);
    m_hub.broadcast(pm::Request, p.request, EventHub::Delivery::Always);
}

void PermissionBroker::onResponse(QWebSocket *client, const QJsonObject &payload) {
    if (Status e = answer(payload))
        m_hub.sendTo(client, wire::msg::Error, errorPayload(e->message, e->code));
}

Status PermissionBroker::answer(const QJsonObject &payload) {
    const auto fail = [](const QString &message, QLatin1String code) -> Status {
        if (code == c::NotFound)
            return Error::notFound(code, message);
        if (code == c::InvalidValue)
            return Error::invalid(code, message);
        return Error::badRequest(code, message);
    };
    const QLatin1String idKey =
        payload.contains(pk::PermissionId) ? pk::PermissionId : pk::RequestId;
    const QLatin1String grantedKey = payload.contains(pk::Granted) ? pk::Granted : pk::Approved;
    if (!payload.contains(idKey))
        return fail(QStringLiteral("permission_response needs 'permissionId' (or 'requestId')"),
                    c::MissingField);
    if (!payload.contains(grantedKey))
        return fail(QStringLiteral("permission_response needs 'granted' (or 'approved')"),
                    c::MissingField);
    const QJsonValue idValue = payload.value(idKey);
    if (!idValue.isString() || idValue.toString().isEmpty())
        return fail(QStringLiteral("field '%1' must be a non-empty string").arg(idKey),
                    c::WrongType);
    if (!payload.value(grantedKey).isBool())
        return fail(QStringLiteral("field '%1' must be a boolean").arg(grantedKey), c::WrongType);
    if (payload.contains(k::AgentId) && !payload.value(k::AgentId).isString())
        return fail(QStringLiteral("field 'agentId' must be a string"), c::WrongType);
    const QString id = idValue.toString();
    const auto it = std::find_if(m_pending.cbegin(), m_pending.cend(),
                                 [&id](const Pending &p) { return p.id == id; });
    if (it == m_pending.cend())
        return fail(QStringLiteral("no pending permission request '%1'").arg(id.left(60)),
                    c::NotFound);
    if (payload.contains(k::AgentId) && payload.value(k::AgentId).toString() != it->agentId)
        return fail(QStringLiteral("permission request '%1' belongs to another agent").arg(id),
                    c::InvalidValue);
    const bool granted = payload.value(grantedKey).toBool();
    QString ruleId;
    if (payload.contains(pk::Remember)) {
        // The rule first, then the answer: a rule that cannot be stored leaves the request
        // pending, so the user can answer it again (with or without remember).
        // A copy, not a reference: adding the rule may answer (and erase) other requests.
        const Pending pending = *it; // NOLINT(performance-unnecessary-copy-initialization)
        m_answering = id;
        auto rule = rememberRule(pending, payload, granted);
        m_answering.clear();
        if (!rule)
            return rule.error();
        ruleId = rule->id;
    }
    resolve(id, granted, granted ? QString() : QStringLiteral("denied by the user"), by::Client,
            ruleId);
    return std::nullopt;
}

Result<PermissionRule> PermissionBroker::rememberRule(const Pending &p, const QJsonObject &payload,
                                                      bool granted) {
    const QJsonValue remember = payload.value(pk::Remember);
    const QJsonValue pattern = payload.value(pk::Pattern);
    if (!remember.isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'remember' must be a string: "
                                                              "agent, project or global"));
    if (payload.contains(pk::Pattern) && !pattern.isString())
        return Error::badRequest(c::WrongType, QStringLiteral("field 'pattern' must be a string"));
    const Agent *agent = m_agents.find(p.agentId);
    if (!agent)
        return Error::notFound(c::NotFound, QStringLiteral("the agent is gone"));
    auto rule = rules::rememberedRule(
        remember.toString(), granted, RuleSubject{p.agentId, agent->cwd}, p.tool, p.toolInput,
        payload.contains(pk::Pattern) ? std::optional<QString>(pattern.toString()) : std::nullopt,
        m_rules.toolKinds());
    if (!rule)
        return rule.error();
    // Stored without announcing to pending requests first: this one is answered by its user.
    return m_rules.add(*rule, QStringLiteral("remember"));
}

void PermissionBroker::resolve(const QString &id, bool granted, const QString &reason,
                               QLatin1String decidedBy, const QString &ruleId) {
    const auto it = std::find_if(m_pending.begin(), m_pending.end(),
                                 [&id](const Pending &p) { return p.id == id; });
    if (it == m_pending.end())
        return;
    const Pending p = *it;
    m_pending.erase(it);
    p.timer->deleteLater();
    logDecision(p.agentId, p.tool, p.toolInput, granted, decidedBy, p.via, ruleId);
    qCInfo(lcAgents).noquote() << "permission" << id << "for agent" << p.agentId
                               << (granted ? "granted" : "denied") << reason;
    p.answer(granted, reason);
    const bool more = std::any_of(m_pending.cbegin(), m_pending.cend(),
                                  [&p](const Pending &o) { return o.agentId == p.agentId; });
    if (!more)
        setWaiting(p.agentId, false);
    m_hub.broadcast(pm::Resolved,
                    QJsonObject{{k::Id, id}, {k::AgentId, p.agentId}, {pk::Granted, granted}},
                    EventHub::Delivery::Always);
}

void PermissionBroker::denyAllOf(const QString &agentId, const QString &reason) {
    QStringList ids;
    for (const Pending &p : std::as_const(m_pending))
        if (p.agentId == agentId)
            ids << p.id;
    for (const QString &id : std::as_const(ids))
        resolve(id, false, reason, by::Stop);
}

void PermissionBroker::setWaiting(const QString &agentId, bool waiting) {
    m_agents.updateRuntime(agentId, [waiting](Agent &a) {
        if (waiting && a.status == st::Working)
            a.status = st::WaitingPermission;
        else if (!waiting && a.status == st::WaitingPermission)
            a.status = st::Working;
    });
}

QList<QByteArray> PermissionBroker::replay() const {
    QList<QByteArray> events;
    for (const Pending &p : m_pending)
        events << encodeEvent(pm::Request, p.request);
    return events;
}

} // namespace flotilla
