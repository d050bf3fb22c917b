#include "core/ListModels.h"

#include "protocol/BossNames.h"
#include "protocol/ExecNames.h"
#include "protocol/PermissionNames.h"
#include "protocol/WireNames.h"

#include <QJsonDocument>

#include <algorithm>

namespace flotilla::monitor {

namespace k = ::flotilla::wire::key;
namespace ek = ::flotilla::wire::exec::key;
namespace bk = ::flotilla::wire::boss::key;
namespace pk = ::flotilla::wire::permission::key;

namespace {
// What exec output a task keeps (the view shows the tail; the service keeps 1 MiB).
constexpr qsizetype kTaskOutputChars = 64 * 1024;

QString firstLine(const QString &s, qsizetype max = 160) {
    QString line = s.section(QLatin1Char('\n'), 0, 0);
    if (line.size() > max)
        line = line.left(max - 1) + QChar(0x2026);
    return line;
}
} // namespace

JsonListModel::JsonListModel(QString idKey, int limit, QObject *parent)
    : QAbstractListModel(parent)
    , m_idKey(std::move(idKey))
    , m_limit(std::max(1, limit)) {
}

int JsonListModel::rowCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : int(m_items.size());
}

QVariant JsonListModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= m_items.size())
        return {};
    const QJsonObject &o = m_items[index.row()];
    switch (role) {
    case Qt::DisplayRole:
        return summary(o);
    case Qt::ToolTipRole:
        return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented));
    case JsonRole:
        return o;
    case IdRole:
        return o.value(m_idKey).toString();
    default:
        return {};
    }
}

void JsonListModel::prepend(const QJsonObject &item) {
    const QString id = item.value(m_idKey).toString();
    if (!id.isEmpty() && rowOf(id) >= 0) {
        update(id, item); // a replayed event (e.g. a pending permission after reconnect)
        return;
    }
    beginInsertRows({}, 0, 0);
    m_items.prepend(item);
    endInsertRows();
    if (m_items.size() > m_limit) {
        beginRemoveRows({}, m_limit, int(m_items.size()) - 1);
        m_items.resize(m_limit);
        endRemoveRows();
    }
}

void JsonListModel::append(const QJsonObject &item) {
    const QString id = item.value(m_idKey).toString();
    if (!id.isEmpty() && rowOf(id) >= 0) {
        update(id, item);
        return;
    }
    const int row = int(m_items.size());
    beginInsertRows({}, row, row);
    m_items.append(item);
    endInsertRows();
    if (m_items.size() > m_limit) {
        const int extra = int(m_items.size()) - m_limit;
        beginRemoveRows({}, 0, extra - 1);
        m_items.remove(0, extra);
        endRemoveRows();
    }
}

void JsonListModel::update(const QString &id, const QJsonObject &changes) {
    const int row = rowOf(id);
    if (row < 0)
        return;
    QJsonObject &o = m_items[row];
    for (auto it = changes.constBegin(); it != changes.constEnd(); ++it)
        o.insert(it.key(), it.value());
    const QModelIndex i = index(row);
    Q_EMIT dataChanged(i, i);
}

void JsonListModel::remove(const QString &id) {
    const int row = rowOf(id);
    if (row < 0)
        return;
    beginRemoveRows({}, row, row);
    m_items.removeAt(row);
    endRemoveRows();
}

void JsonListModel::reset(const QList<QJsonObject> &items) {
    beginResetModel();
    m_items = items.mid(0, m_limit);
    endResetModel();
}

int JsonListModel::rowOf(const QString &id) const {
    for (int row = 0; row < m_items.size(); ++row) {
        if (m_items[row].value(m_idKey).toString() == id)
            return row;
    }
    return -1;
}

QJsonObject JsonListModel::item(int row) const {
    return row >= 0 && row < m_items.size() ? m_items[row] : QJsonObject();
}

QJsonObject JsonListModel::itemById(const QString &id) const {
    return item(rowOf(id));
}

QString JsonListModel::summary(const QJsonObject &item) const {
    // One generic line for the payloads these lists hold: notifications {title, message},
    // permission requests {tool, toolInput}, delegation decisions {selectedAgentName, task}.
    const QString who = item.value(k::AgentName).toString();
    QString what;
    if (item.contains(k::Title)) {
        what = item.value(k::Title).toString();
        const QString message = item.value(k::Message).toString();
        if (!message.isEmpty())
            what += QStringLiteral(": ") + firstLine(message);
    } else if (item.contains(pk::Tool)) {
        what = item.value(pk::Tool).toString() + QLatin1Char(' ') +
               firstLine(QString::fromUtf8(QJsonDocument(item.value(pk::ToolInput).toObject())
                                               .toJson(QJsonDocument::Compact)));
    } else if (item.contains(bk::SelectedAgentName)) {
        return item.value(bk::SelectedAgentName).toString() + QStringLiteral(": ") +
               firstLine(item.value(bk::Task).toString()) + QStringLiteral(" [") +
               item.value(k::Status).toString() + u']';
    } else {
        what = firstLine(item.value(k::Message).toString());
    }
    return who.isEmpty() ? what : who + QStringLiteral(": ") + what;
}

TasksModel::TasksModel(QObject *parent)
    : JsonListModel(QString(ek::TaskId), 200, parent) {
}

void TasksModel::appendOutput(const QString &taskId, const QString &text) {
    const QJsonObject task = itemById(taskId);
    if (task.isEmpty())
        return;
    QString output = task.value(ek::Output).toString() + text;
    if (output.size() > kTaskOutputChars)
        output = output.right(kTaskOutputChars);
    update(taskId, {{ek::Output, output}});
}

QString TasksModel::summary(const QJsonObject &item) const {
    QString state;
    if (!item.value(DoneKey).toBool()) {
        state = tr("running");
    } else if (item.value(ek::Killed).toBool()) {
        state = tr("killed");
    } else if (item.value(ek::TimedOut).toBool()) {
        state = tr("timed out");
    } else if (item.value(ek::ExitCode).isDouble()) {
        state = tr("exit %1").arg(item.value(ek::ExitCode).toInt());
    } else {
        state = tr("ended");
    }
    return item.value(k::AgentName).toString() + QStringLiteral(": ") +
           firstLine(item.value(ek::Command).toString()) + QStringLiteral(" [") + state + u']';
}

} // namespace flotilla::monitor
