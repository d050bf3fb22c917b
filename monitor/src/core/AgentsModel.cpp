#include "core/AgentsModel.h"

#include "core/HostsModel.h"
#include "core/MonitorLog.h"
#include "core/SandboxText.h"
#include "core/UsageText.h"
#include "protocol/HostNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/UsageNames.h"
#include "protocol/WireNames.h"

#include <QSet>
#include <QStringList>

#include <algorithm>

Q_LOGGING_CATEGORY(lcMonitor, "flotilla.monitor", QtInfoMsg)

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;

namespace {

// Which cell shows a key; -1: none (the key still changes AgentJsonRole).
int columnOfKey(const QString &key) {
    static const QHash<QString, int> columns{
        {QString(k::Name_), AgentsModel::Name},
        {QString(k::Class), AgentsModel::Class},
        {QString(k::Provider), AgentsModel::Provider},
        {QString(k::Model), AgentsModel::Provider},
        {QString(k::Status), AgentsModel::Status},
        {QString(k::TrackingStatus), AgentsModel::Status},
        {QString(k::LastError), AgentsModel::Status},
        {QString(k::IsProcessRunning), AgentsModel::Status},
        {QString(k::CurrentTool), AgentsModel::CurrentTool},
        {QString(k::ContextUsed), AgentsModel::Context},
        {QString(k::ContextLimit), AgentsModel::Context},
        {QString(k::CurrentTask), AgentsModel::Task},
        {QString(k::TaskLabel), AgentsModel::Task},
        {QString(::flotilla::wire::usage::key::Usage), AgentsModel::Usage},
        {QString(::flotilla::wire::usage::key::Budget), AgentsModel::Usage},
        // The badge and tooltip on the name (the permission mode picks the default sandbox).
        {QString(::flotilla::wire::sandbox::key::Sandbox), AgentsModel::Name},
        {QString(k::PermissionMode), AgentsModel::Name},
        {QString(::flotilla::wire::host::key::Host), AgentsModel::Host},
    };
    return columns.value(key, -1);
}

double contextFraction(const QJsonObject &a) {
    const qint64 limit = a.value(k::ContextLimit).toInteger();
    if (limit <= 0)
        return 0.0;
    return std::clamp(double(a.value(k::ContextUsed).toInteger()) / double(limit), 0.0, 1.0);
}

} // namespace

AgentsModel::AgentsModel(QObject *parent)
    : QAbstractTableModel(parent) {
}

void AgentsModel::setServiceName(const QString &name) {
    if (name == m_serviceName)
        return;
    m_serviceName = name;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, Service), index(int(m_rows.size()) - 1, Service));
}

void AgentsModel::setSandboxDefault(const QString &mode) {
    if (mode == m_sandboxDefault)
        return;
    m_sandboxDefault = mode;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, Name), index(int(m_rows.size()) - 1, Name));
}

int AgentsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int AgentsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant AgentsModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const QJsonObject &a = m_rows[index.row()];
    switch (role) {
    case AgentIdRole:
        return a.value(k::Id).toString();
    case ContextFractionRole:
        return contextFraction(a);
    case ContextUsedRole:
        return a.value(k::ContextUsed).toInteger();
    case ContextLimitRole:
        return a.value(k::ContextLimit).toInteger();
    case AgentJsonRole:
        return a;
    case SandboxedRole:
        return isSandboxed(a, m_sandboxDefault);
    case SandboxBlockedRole:
        return m_blocked.value(a.value(k::Id).toString()).count;
    case Qt::ToolTipRole:
        if (index.column() == Name) {
            const Blocked blocked = m_blocked.value(a.value(k::Id).toString());
            const QString tip = (QStringList{sandboxDetails(a, m_sandboxDefault),
                                             sandboxBlockedTally(blocked.count, blocked.last)})
                                    .join(u'\n')
                                    .trimmed();
            return tip.isEmpty() ? QVariant() : tip;
        }
        if (index.column() == Status && a.value(k::LastError).isString())
            return a.value(k::LastError).toString();
        if (index.column() == Task)
            return a.value(k::CurrentTask).toString();
        if (index.column() == Usage) {
            const QString lines = (QStringList{usageLine(a), budgetLine(a)}).join(u'\n');
            return lines.trimmed();
        }
        return {};
    case SortRole:
        if (index.column() == Context)
            return contextFraction(a);
        if (index.column() == Usage)
            return a.value(::flotilla::wire::usage::key::Usage)
                .toObject()
                .value(::flotilla::wire::usage::key::CostUsd)
                .toDouble();
        return data(index, Qt::DisplayRole).toString().toLower();
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Name:
        return a.value(k::Name_).toString();
    case Class:
        return a.value(k::Class).toString();
    case Provider: { // "codex · gpt-5-codex": which CLI runs the agent, and its model
        const QString model = a.value(k::Model).toString();
        const QString provider = a.value(k::Provider).toString();
        return model.isEmpty() ? provider : provider + QStringLiteral(" \u00b7 ") + model;
    }
    case Status: {
        const QString tracking = a.value(k::TrackingStatus).toString();
        const QString status = a.value(k::Status).toString();
        return tracking.isEmpty() ? status : status + QStringLiteral(" (") + tracking + u')';
    }
    case CurrentTool:
        return a.value(k::CurrentTool).toString();
    case Context: {
        const qint64 limit = a.value(k::ContextLimit).toInteger();
        if (limit <= 0)
            return QString();
        const qint64 used = a.value(k::ContextUsed).toInteger();
        return QStringLiteral("%1 / %2 (%3%)")
            .arg(compactTokens(used), compactTokens(limit))
            .arg(qRound(contextFraction(a) * 100));
    }
    case Task: {
        const QString task = a.value(k::CurrentTask).toString();
        return task.isEmpty() ? a.value(k::TaskLabel).toString() : task;
    }
    case Service:
        return m_serviceName;
    case Host:
        return hostOfAgent(a);
    case Usage: { // "$0.0123 · 12k tok", and the budget's mark
        const QString budget = budgetLine(a);
        QString cell = usageCell(a);
        if (!budget.isEmpty())
            cell += budget.endsWith(QLatin1String("(reached)")) ? tr("  budget reached")
                                                                : tr("  · budget");
        return cell.trimmed();
    }
    default:
        return {};
    }
}

QVariant AgentsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Class:
        return tr("Class");
    case Provider:
        return tr("Provider");
    case Status:
        return tr("Status");
    case CurrentTool:
        return tr("Tool");
    case Context:
        return tr("Context");
    case Task:
        return tr("Task");
    case Usage:
        return tr("Usage");
    case Service:
        return tr("Service");
    case Host:
        return tr("Host");
    default:
        return {};
    }
}

void AgentsModel::applySnapshot(const QJsonArray &agents) {
    QHash<QString, QJsonObject> incoming;
    QList<QJsonObject> order;
    for (const QJsonValue &v : agents) {
        const QJsonObject a = v.toObject();
        const QString id = a.value(k::Id).toString();
        if (id.isEmpty() || incoming.contains(id))
            continue;
        incoming.insert(id, a);
        order.append(a);
    }

    // Vanished rows go first, from the bottom, in contiguous runs (few signals, stable indexes).
    for (int row = int(m_rows.size()) - 1; row >= 0;) {
        if (incoming.contains(m_rows[row].value(k::Id).toString())) {
            --row;
            continue;
        }
        int first = row;
        while (first > 0 && !incoming.contains(m_rows[first - 1].value(k::Id).toString()))
            --first;
        beginRemoveRows({}, first, row);
        m_rows.remove(first, row - first + 1);
        endRemoveRows();
        row = first - 1;
    }
    m_rowById.clear();
    for (int row = 0; row < m_rows.size(); ++row)
        m_rowById.insert(m_rows[row].value(k::Id).toString(), row);

    // Known rows take the snapshot's values as a diff (only changed cells are signalled); new
    // agents are appended, in the service's (creation) order.
    QList<QJsonObject> fresh;
    for (const QJsonObject &a : std::as_const(order)) {
        const QString id = a.value(k::Id).toString();
        if (m_rowById.contains(id)) {
            QJsonObject changes = a;
            // Keys the snapshot no longer carries are cleared, as the service would send null.
            for (auto it = m_rows[m_rowById.value(id)].constBegin();
                 it != m_rows[m_rowById.value(id)].constEnd(); ++it) {
                if (!a.contains(it.key()))
                    changes.insert(it.key(), QJsonValue::Null);
            }
            applyChanges(id, changes);
        } else {
            fresh.append(a);
        }
    }
    if (fresh.isEmpty())
        return;
    const int first = int(m_rows.size());
    beginInsertRows({}, first, first + int(fresh.size()) - 1);
    for (const QJsonObject &a : std::as_const(fresh)) {
        m_rowById.insert(a.value(k::Id).toString(), int(m_rows.size()));
        m_rows.append(a);
    }
    endInsertRows();
}

void AgentsModel::upsert(const QJsonObject &agent) {
    const QString id = agent.value(k::Id).toString();
    if (id.isEmpty())
        return;
    if (m_rowById.contains(id)) {
        applyChanges(id, agent);
        return;
    }
    const int row = int(m_rows.size());
    beginInsertRows({}, row, row);
    m_rows.append(agent);
    m_rowById.insert(id, row);
    endInsertRows();
}

void AgentsModel::applyChanges(const QString &agentId, const QJsonObject &changes) {
    const int row = rowOf(agentId);
    if (row < 0) {
        // An update for an agent we never saw: the next snapshot brings it whole.
        qCDebug(lcMonitor) << "agent_updated for an unknown agent" << agentId;
        return;
    }
    QJsonObject &a = m_rows[row];
    QList<bool> columns(ColumnCount, false);
    bool any = false;
    for (auto it = changes.constBegin(); it != changes.constEnd(); ++it) {
        if (it.key() == k::Id)
            continue;
        const bool known = a.contains(it.key());
        if (known ? a.value(it.key()) == it.value() : it.value().isNull())
            continue;
        a.insert(it.key(), it.value());
        any = true;
        const int column = columnOfKey(it.key());
        if (column >= 0)
            columns[column] = true;
    }
    if (!any)
        return;
    bool anyColumn = false;
    for (int c = 0; c < ColumnCount;) {
        if (!columns[c]) {
            ++c;
            continue;
        }
        int last = c;
        while (last + 1 < ColumnCount && columns[last + 1])
            ++last;
        Q_EMIT dataChanged(index(row, c), index(row, last));
        anyColumn = true;
        c = last + 1;
    }
    if (!anyColumn) {
        // Nothing visible changed (tokensUsed, sessionId ...): details panes still want to know.
        Q_EMIT dataChanged(index(row, Name), index(row, Name), {AgentJsonRole});
    }
}

void AgentsModel::setContext(const QString &agentId, qint64 used, qint64 limit) {
    applyChanges(agentId, {{k::ContextUsed, used}, {k::ContextLimit, limit}});
}

void AgentsModel::remove(const QString &agentId) {
    const int row = rowOf(agentId);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    m_rowById.remove(agentId);
    m_blocked.remove(agentId);
    for (auto it = m_rowById.begin(); it != m_rowById.end(); ++it) {
        if (it.value() > row)
            --it.value();
    }
    endRemoveRows();
}

void AgentsModel::noteSandboxBlocked(const QString &agentId, const QString &where) {
    Blocked &b = m_blocked[agentId];
    ++b.count;
    b.last = where;
    const int row = rowOf(agentId);
    if (row >= 0)
        Q_EMIT dataChanged(index(row, Name), index(row, Name),
                           {Qt::ToolTipRole, SandboxBlockedRole});
}

int AgentsModel::rowOf(const QString &agentId) const {
    return m_rowById.value(agentId, -1);
}

QJsonObject AgentsModel::agent(const QString &agentId) const {
    const int row = rowOf(agentId);
    return row < 0 ? QJsonObject() : m_rows[row];
}

QString AgentsModel::agentIdAt(int row) const {
    return row >= 0 && row < m_rows.size() ? m_rows[row].value(k::Id).toString() : QString();
}

QStringList AgentsModel::agentIds() const {
    QStringList ids;
    ids.reserve(m_rows.size());
    for (const QJsonObject &a : m_rows)
        ids.append(a.value(k::Id).toString());
    return ids;
}

} // namespace flotilla::monitor
