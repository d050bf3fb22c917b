#pragma once
// Standing permission rules and the decision log, in SQLite (schema v4): every rule
// change and every logged decision is written before it is acknowledged or announced. Rules are
// few and read on every permission check, so they are also held in memory; the log is read
// from the database (newest first, by agent) and bounded: past kMaxDecisions the oldest go.

#include "base/Clock.h"
#include "base/Error.h"
#include "permissions/RuleMatcher.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QObject>

namespace flotilla {

class Database;

// One entry of the decision log (GET /api/permission-decisions).
struct PermissionDecision {
    QString id;
    QString agentId;
    QString agentName;
    QString tool;
    QJsonObject toolInput; // secrets already masked by the caller
    bool allowed = false;
    QString by;     // client | rule | timeout | stop
    QString ruleId; // when by == rule
    qint64 timestamp = 0;
    QString via;        // hook | process (empty in entries older than the field)
    int suppressed = 0; // this agent's hook entries not logged just before (rate limit)

    QJsonObject toJson() const;
};

class RuleStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(RuleStore)
public:
    // A rule set is something a person reads; far more is a client looping.
    static constexpr int kMaxRules = 1000;
    static constexpr int kMaxDecisions = 5000;

    // `toolKinds`: which tools are commands and file edits, for whoever validates or matches
    // these rules (toolKinds()); it must outlive the store.
    RuleStore(Database &db, const rules::ToolKinds &toolKinds, Clock clock,
              QObject *parent = nullptr);
    ~RuleStore() override;

    const rules::ToolKinds &toolKinds() const { return m_toolKinds; }

    Status load();
    const QList<PermissionRule> &rules() const { return m_rules; }
    QJsonArray rulesJson() const;

    // Gives the rule an id, createdAt and `source`, stores it, then emits rulesChanged.
    Result<PermissionRule> add(PermissionRule rule, const QString &source);
    // All or nothing (config import).
    Result<QList<PermissionRule>> addAll(QList<PermissionRule> rules, const QString &source);
    Status remove(const QString &id);
    // Removes the rules scoped to an agent that is gone (they can never match again).
    void removeScopedTo(const QString &agentId);

    Status log(PermissionDecision decision);
    // Newest first; `agentId` empty: every agent.
    Result<QList<PermissionDecision>> decisions(int limit, const QString &agentId) const;

Q_SIGNALS:
    void rulesChanged();

private:
    Status insert(const QList<PermissionRule> &rules);
    Status deleteIds(const QStringList &ids);

    Database &m_db;
    const rules::ToolKinds &m_toolKinds;
    Clock m_clock;
    QList<PermissionRule> m_rules; // creation order
    int m_logsSinceTrim = 0;
};

} // namespace flotilla
