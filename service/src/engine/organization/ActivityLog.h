#pragma once
// The activity log: short human-readable lines about what happened to agents and areas ("Agent
// 'Builder' failed: ...", "Area 'Backend' created"), for a UI's activity panel. Kept in a bounded
// in-memory ring: it is a recent-events view, not an audit trail, so it is not persisted and
// starts empty after a restart. Every entry is announced by `recorded` (-> `activity` event).

#include "base/Clock.h"

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>

namespace flotilla {

struct ActivityEntry {
    QString id;
    qint64 timestamp = 0; // epoch ms
    QString agentId;      // empty: not about one agent (JSON null)
    QString agentName;
    QString kind; // wire::org::activity
    QString message;

    QJsonObject toJson() const;
};

class ActivityLog final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ActivityLog)
public:
    static constexpr int kCapacity = 200;
    static constexpr int kDefaultLimit = 50;

    explicit ActivityLog(Clock clock, int capacity = kCapacity, QObject *parent = nullptr);
    ~ActivityLog() override;

    void record(QLatin1String kind, const QString &message, const QString &agentId = {},
                const QString &agentName = {});
    // Newest first; only entries about `agentId` when it is not empty.
    QList<ActivityEntry> latest(int limit, const QString &agentId = {}) const;
    int size() const { return int(m_entries.size()); }

Q_SIGNALS:
    void recorded(const flotilla::ActivityEntry &entry);

private:
    Clock m_clock;
    int m_capacity;
    QList<ActivityEntry> m_entries; // oldest first
};

} // namespace flotilla
