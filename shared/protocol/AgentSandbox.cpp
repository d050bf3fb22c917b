#include "protocol/AgentSandbox.h"

#include "protocol/SandboxNames.h"

#include <QJsonArray>
#include <QJsonObject>

namespace flotilla {

namespace sbk = wire::sandbox::key;

namespace {
QStringList strings(const QJsonValue &v) {
    QStringList out;
    const QJsonArray array = v.toArray();
    for (const QJsonValue &item : array) {
        if (item.isString())
            out.append(item.toString());
    }
    return out;
}
} // namespace

bool AgentSandbox::confines() const {
    return mode == wire::sandbox::mode::Workspace;
}

QJsonValue AgentSandbox::toJson() const {
    if (!isSet())
        return QJsonValue();
    return QJsonObject{
        {sbk::Mode, mode},
        {sbk::Network, network.isEmpty() ? QString(wire::sandbox::network::Full) : network},
        {sbk::AllowHosts, QJsonArray::fromStringList(allowHosts)},
        {sbk::Writable, QJsonArray::fromStringList(writable)},
        {sbk::Hidden, QJsonArray::fromStringList(hidden)},
        {sbk::AllowUnconfined, allowUnconfined}};
}

AgentSandbox AgentSandbox::fromJson(const QJsonValue &value) {
    const QJsonObject o = value.toObject();
    AgentSandbox s;
    s.mode = o.value(sbk::Mode).toString();
    if (s.mode.isEmpty())
        return {};
    s.network = o.value(sbk::Network).toString(QString(wire::sandbox::network::Full));
    s.allowHosts = strings(o.value(sbk::AllowHosts));
    s.writable = strings(o.value(sbk::Writable));
    s.hidden = strings(o.value(sbk::Hidden));
    s.allowUnconfined = o.value(sbk::AllowUnconfined).toBool();
    return s;
}

} // namespace flotilla
