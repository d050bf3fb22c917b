#include "core/HostsModel.h"

#include "protocol/HostNames.h"

#include <QColor>
#include <QSet>
#include <QStringList>

namespace flotilla::monitor {

namespace hk = ::flotilla::wire::host::key;
namespace hs = ::flotilla::wire::host::state;

namespace {

QString nameOf(const QJsonObject &host) {
    return host.value(hk::Name_).toString();
}

// A CLI's version line from a check; empty when never checked.
QString versionCell(const QJsonObject &check, QLatin1String key) {
    if (check.isEmpty() || !check.value(hk::Reachable).toBool())
        return {};
    const QJsonValue v = check.value(key);
    return v.isString() ? v.toString() : HostsModel::tr("missing");
}

} // namespace

QString hostOfAgent(const QJsonObject &agent) {
    const QString host = agent.value(hk::Host).toString();
    return host.isEmpty() ? QString(::flotilla::wire::host::Local) : host;
}

QString checkSummary(const QJsonObject &check) {
    if (check.isEmpty())
        return {};
    if (!check.value(hk::Reachable).toBool()) {
        const QString error = check.value(hk::Error).toString();
        return error.isEmpty() ? HostsModel::tr("unreachable")
                               : HostsModel::tr("unreachable: %1").arg(error);
    }
    auto version = [&check](QLatin1String key) {
        const QJsonValue v = check.value(key);
        return v.isString() ? v.toString() : HostsModel::tr("missing");
    };
    return HostsModel::tr("reachable in %1 ms as %2 (home %3); claude %4, codex %5, git %6")
        .arg(check.value(hk::LatencyMs).toInteger())
        .arg(check.value(hk::User).toString(), check.value(hk::Home).toString(),
             version(hk::Claude), version(hk::Codex), version(hk::Git));
}

HostsModel::HostsModel(QObject *parent)
    : QAbstractTableModel(parent) {
}

int HostsModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int HostsModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HostsModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const QJsonObject &h = m_rows[index.row()];
    const QString name = nameOf(h);
    const QJsonObject check = m_checks.value(name);
    const QString state = h.value(hk::State).toString();
    switch (role) {
    case HostNameRole:
        return name;
    case HostJsonRole:
        return h;
    case CheckJsonRole:
        return check;
    case Qt::ToolTipRole:
        if (index.column() == State || index.column() == Error) {
            const QString error = h.value(hk::Error).toString();
            return error.isEmpty() ? QVariant() : error;
        }
        if (index.column() == Latency) {
            const QString summary = checkSummary(check);
            return summary.isEmpty() ? QVariant() : summary;
        }
        return {};
    case Qt::ForegroundRole:
        if ((index.column() == State && state == hs::Unreachable) ||
            (index.column() == Latency && !check.isEmpty() && !check.value(hk::Reachable).toBool()))
            return QColor(0xb0, 0x00, 0x20);
        return {};
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (index.column()) {
    case Name:
        return name;
    case Ssh:
        return h.value(hk::Ssh).toString();
    case State:
        return state;
    case Agents:
        return m_agentCounts ? m_agentCounts->value(name, 0) : h.value(hk::Agents).toInt();
    case Latency:
        if (check.isEmpty())
            return QString();
        return check.value(hk::Reachable).toBool()
                   ? tr("%1 ms").arg(check.value(hk::LatencyMs).toInteger())
                   : tr("unreachable");
    case Claude:
        return versionCell(check, hk::Claude);
    case Codex:
        return versionCell(check, hk::Codex);
    case Git:
        return versionCell(check, hk::Git);
    case Error:
        return h.value(hk::Error).toString();
    default:
        return {};
    }
}

QVariant HostsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Name:
        return tr("Name");
    case Ssh:
        return tr("SSH");
    case State:
        return tr("State");
    case Agents:
        return tr("Agents");
    case Latency:
        return tr("Latency");
    case Claude:
        return tr("Claude");
    case Codex:
        return tr("Codex");
    case Git:
        return tr("Git");
    case Error:
        return tr("Error");
    default:
        return {};
    }
}

void HostsModel::applySnapshot(const QJsonArray &hosts) {
    QSet<QString> incoming;
    for (const QJsonValue &v : hosts)
        incoming.insert(nameOf(v.toObject()));
    for (int row = int(m_rows.size()) - 1; row >= 0; --row) {
        if (!incoming.contains(nameOf(m_rows[row])))
            remove(nameOf(m_rows[row]));
    }
    for (const QJsonValue &v : hosts)
        upsert(v.toObject());
}

void HostsModel::upsert(const QJsonObject &host) {
    const QString name = nameOf(host);
    if (name.isEmpty())
        return;
    const int row = rowOf(name);
    if (row < 0) {
        const int at = int(m_rows.size());
        beginInsertRows({}, at, at);
        m_rows.append(host);
        endInsertRows();
        return;
    }
    if (m_rows[row] == host)
        return;
    // The ssh destination may be another machine now: what a check found there is stale.
    if (m_rows[row].value(hk::Ssh) != host.value(hk::Ssh))
        m_checks.remove(name);
    m_rows[row] = host;
    emitRow(row, 0, ColumnCount - 1);
}

void HostsModel::remove(const QString &name) {
    const int row = rowOf(name);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_rows.removeAt(row);
    m_checks.remove(name);
    endRemoveRows();
}

void HostsModel::setCheck(const QString &name, const QJsonObject &check) {
    m_checks.insert(name, check);
    const int row = rowOf(name);
    if (row >= 0)
        emitRow(row, Latency, Git);
}

void HostsModel::setAgentCounts(const QHash<QString, int> &counts) {
    if (m_agentCounts == counts)
        return;
    m_agentCounts = counts;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, Agents), index(int(m_rows.size()) - 1, Agents));
}

void HostsModel::emitRow(int row, int first, int last) {
    Q_EMIT dataChanged(index(row, first), index(row, last));
}

int HostsModel::rowOf(const QString &name) const {
    for (int row = 0; row < m_rows.size(); ++row) {
        if (nameOf(m_rows[row]) == name)
            return row;
    }
    return -1;
}

QJsonObject HostsModel::host(const QString &name) const {
    const int row = rowOf(name);
    return row < 0 ? QJsonObject() : m_rows[row];
}

QJsonObject HostsModel::check(const QString &name) const {
    return m_checks.value(name);
}

QStringList HostsModel::names() const {
    QStringList out;
    out.reserve(m_rows.size());
    for (const QJsonObject &h : m_rows)
        out << nameOf(h);
    return out;
}

} // namespace flotilla::monitor
