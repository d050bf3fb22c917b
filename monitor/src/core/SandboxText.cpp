#include "core/SandboxText.h"

#include "protocol/AgentSandbox.h"
#include "protocol/SandboxNames.h"

#include <QCoreApplication>
#include <QStringList>

namespace flotilla::monitor {

namespace sbk = ::flotilla::wire::sandbox::key;
namespace sbn = ::flotilla::wire::sandbox::network;

namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("SandboxText", text);
}

AgentSandbox sandboxOf(const QJsonObject &agent) {
    return AgentSandbox::fromJson(agent.value(sbk::Sandbox));
}

} // namespace

QString sandboxLine(const QJsonObject &agent) {
    const AgentSandbox s = sandboxOf(agent);
    if (!s.isSet())
        return {};
    if (!s.confines())
        return tr("no sandbox");
    QString network = tr("network %1").arg(s.network);
    if (s.network == sbn::Allowlist)
        network += tr(" (%1 host(s))").arg(s.allowHosts.size());
    return tr("sandbox: %1 \u00b7 %2").arg(s.mode, network);
}

QString sandboxDetails(const QJsonObject &agent) {
    const AgentSandbox s = sandboxOf(agent);
    if (!s.isSet())
        return {};
    if (!s.confines())
        return tr("No sandbox (mode %1): the agent's commands run unconfined.").arg(s.mode);
    QStringList lines{
        tr("Sandbox %1: commands write only in the agent's working directory.").arg(s.mode)};
    if (s.network == sbn::Allowlist)
        lines << tr("Network: allowlist: %1")
                     .arg(s.allowHosts.isEmpty() ? tr("no hosts")
                                                 : s.allowHosts.join(QStringLiteral(", ")));
    else
        lines << tr("Network: %1").arg(s.network);
    if (!s.writable.isEmpty())
        lines << tr("Also writable: %1").arg(s.writable.join(QStringLiteral(", ")));
    if (!s.hidden.isEmpty())
        lines << tr("Hidden: %1").arg(s.hidden.join(QStringLiteral(", ")));
    return lines.join(u'\n');
}

bool isSandboxed(const QJsonObject &agent) {
    return sandboxOf(agent).confines();
}

QString sandboxHint(bool sandboxed, const QString &toolOutput) {
    // What the kernel says (EROFS) when a confined command writes outside its binds; the same
    // text from an unconfined agent is about a real read-only mount, not the sandbox.
    if (!sandboxed || !toolOutput.contains(QLatin1String("Read-only file system")))
        return {};
    return tr("The sandbox allows writes only in the agent's working directory (and the paths it "
              "lists as writable).");
}

} // namespace flotilla::monitor
