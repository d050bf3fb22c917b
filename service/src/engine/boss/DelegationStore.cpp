#include "boss/DelegationStore.h"

#include "protocol/BossNames.h"
#include "storage/Database.h"

#include <QJsonDocument>

namespace flotilla::boss {

namespace k = wire::key;
namespace bk = wire::boss::key;
namespace ds = wire::boss::delegation;

namespace {
QJsonValue orNull(const QString &s) {
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

// Stored as TEXT (not a BLOB) so SQL text operators such as LIKE see the JSON.
QString rowData(const Delegation &d) {
    return QString::fromUtf8(QJsonDocument(d.toJson()).toJson(QJsonDocument::Compact));
}
} // namespace

QJsonObject Delegation::toJson() const {
    return QJsonObject{
        {k::Id, id},
        {k::BossId, bossId},
        {bk::Command, command},
        {bk::SelectedAgentId, selectedAgentId},
        {bk::SelectedAgentName, selectedAgentName},
        {bk::Task, task},
        {bk::Reasoning, reasoning},
        {bk::Confidence, confidence},
        {k::Status, status},
        {k::Timestamp, timestamp},
        {bk::PlanId, orNull(planId)},
        {bk::PlanTaskId, orNull(planTaskId)},
        {bk::Summary, orNull(summary)},
        {bk::CompletedAt, completedAt > 0 ? QJsonValue(completedAt) : QJsonValue()},
    };
}

bool Delegation::fromJson(const QJsonObject &json, Delegation *out) {
    Delegation d;
    d.id = json.value(k::Id).toString();
    d.bossId = json.value(k::BossId).toString();
    if (d.id.isEmpty() || d.bossId.isEmpty())
        return false;
    d.command = json.value(bk::Command).toString();
    d.selectedAgentId = json.value(bk::SelectedAgentId).toString();
    d.selectedAgentName = json.value(bk::SelectedAgentName).toString();
    d.task = json.value(bk::Task).toString();
    d.reasoning = json.value(bk::Reasoning).toString();
    d.confidence = json.value(bk::Confidence).toString();
    d.status = json.value(k::Status).toString();
    d.timestamp = json.value(k::Timestamp).toInteger();
    d.planId = json.value(bk::PlanId).toString();
    d.planTaskId = json.value(bk::PlanTaskId).toString();
    d.summary = json.value(bk::Summary).toString();
    d.completedAt = json.value(bk::CompletedAt).toInteger();
    *out = d;
    return true;
}

DelegationStore::DelegationStore(Database &db, Clock clock)
    : m_db(db)
    , m_clock(std::move(clock)) {
}

Status DelegationStore::add(const Delegation &d) {
    if (Status e = m_db.exec(
            QStringLiteral("INSERT INTO delegations (id, boss_id, data) VALUES (?, ?, ?)"),
            {d.id, d.bossId, rowData(d)}))
        return e;
    // Bounded per boss: the history is for looking back, not an audit log.
    return m_db.exec(QStringLiteral("DELETE FROM delegations WHERE boss_id = ? AND seq NOT IN "
                                    "(SELECT seq FROM delegations WHERE boss_id = ? "
                                    "ORDER BY seq DESC LIMIT ?)"),
                     {d.bossId, d.bossId, kKeepPerBoss});
}

Status DelegationStore::update(const Delegation &d) {
    return m_db.exec(QStringLiteral("UPDATE delegations SET data = ? WHERE id = ?"),
                     {rowData(d), d.id});
}

Result<QList<Delegation>> DelegationStore::history(const QString &bossId, int limit) const {
    QList<Delegation> list;
    Status e = m_db.query(
        QStringLiteral("SELECT data FROM delegations WHERE boss_id = ? ORDER BY seq DESC LIMIT ?"),
        {bossId, limit}, [&](const QVariantList &row) {
            Delegation d;
            if (Delegation::fromJson(QJsonDocument::fromJson(row.value(0).toByteArray()).object(),
                                     &d))
                list.append(d);
        });
    if (e)
        return *e;
    return list;
}

Result<QList<Delegation>> DelegationStore::failUnfinished(const QString &why) {
    QList<Delegation> open;
    // The status lives in the JSON; a LIKE prefilter keeps the scan to candidate rows.
    Status e = m_db.query(
        QStringLiteral("SELECT data FROM delegations WHERE CAST(data AS TEXT) LIKE ? ORDER BY seq"),
        {QStringLiteral("%\"status\":\"%1\"%").arg(ds::Sent)}, [&](const QVariantList &row) {
            Delegation d;
            if (Delegation::fromJson(QJsonDocument::fromJson(row.value(0).toByteArray()).object(),
                                     &d) &&
                d.status == ds::Sent)
                open.append(d);
        });
    if (e)
        return *e;
    const qint64 now = m_clock.nowMs();
    for (Delegation &d : open) {
        d.status = ds::Failed;
        d.summary = why;
        d.completedAt = now;
        if (Status u = update(d))
            return *u;
    }
    return open;
}

Status DelegationStore::removeBoss(const QString &bossId) {
    return m_db.exec(QStringLiteral("DELETE FROM delegations WHERE boss_id = ?"), {bossId});
}

} // namespace flotilla::boss
