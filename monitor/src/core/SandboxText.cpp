#include "core/SandboxText.h"

#include "protocol/AgentSandbox.h"
#include "protocol/PermissionNames.h"
#include "protocol/SandboxNames.h"
#include "protocol/WireNames.h"

#include <QCoreApplication>
#include <QStringList>

namespace flotilla::monitor {

namespace sbk = ::flotilla::wire::sandbox::key;
namespace sbn = ::flotilla::wire::sandbox::network;

namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("SandboxText", text);
}

// The sandbox its commands run in, as the service resolves it (SandboxPolicy::effective): its
// own, else the default for its permission mode (a default has network full). Not set when the
// agent is auto and the service's default is not known.
struct Effective {
    AgentSandbox sandbox;
    bool byDefault = false;
    bool autoAgent = false;
};

Effective effectiveOf(const QJsonObject &agent, const QString &serviceDefault) {
    Effective e;
    e.sandbox = AgentSandbox::fromJson(agent.value(sbk::Sandbox));
    if (e.sandbox.isSet())
        return e;
    e.byDefault = true;
    e.autoAgent = agent.value(::flotilla::wire::key::PermissionMode).toString() ==
                  ::flotilla::wire::permission::mode::Auto;
    e.sandbox.mode = e.autoAgent ? serviceDefault : QString(::flotilla::wire::sandbox::mode::Off);
    if (e.sandbox.isSet())
        e.sandbox.network = QString(sbn::Full);
    return e;
}

} // namespace

QString sandboxLine(const QJsonObject &agent, const QString &serviceDefault) {
    const Effective e = effectiveOf(agent, serviceDefault);
    const AgentSandbox &s = e.sandbox;
    if (!s.isSet())
        return {};
    if (!s.confines())
        return e.byDefault ? tr("no sandbox (default)") : tr("no sandbox");
    QString network = tr("network %1").arg(s.network);
    if (s.network == sbn::Allowlist)
        network += tr(" (%1 host(s))").arg(s.allowHosts.size());
    const QString mode = e.byDefault ? tr("%1 (default)").arg(s.mode) : s.mode;
    return tr("sandbox: %1 \u00b7 %2").arg(mode, network);
}

QString sandboxDetails(const QJsonObject &agent, const QString &serviceDefault) {
    const Effective e = effectiveOf(agent, serviceDefault);
    const AgentSandbox &s = e.sandbox;
    if (!s.isSet())
        return {};
    const QString whose = !e.byDefault  ? QString()
                          : e.autoAgent ? tr(" (the service's default for auto agents)")
                                        : tr(" (the default for ask agents)");
    if (!s.confines()) {
        return e.byDefault
                   ? tr("No sandbox%1: the agent's commands run unconfined.").arg(whose)
                   : tr("No sandbox (mode %1): the agent's commands run unconfined.").arg(s.mode);
    }
    QStringList lines{tr("Sandbox %1%2: commands write only in the agent's working directory.")
                          .arg(s.mode, whose)};
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

bool isSandboxed(const QJsonObject &agent, const QString &serviceDefault) {
    return effectiveOf(agent, serviceDefault).sandbox.confines();
}

QString sandboxHint(bool sandboxed, const QString &toolOutput) {
    // What the kernel says (EROFS) when a confined command writes outside its binds; the same
    // text from an unconfined agent is about a real read-only mount, not the sandbox.
    if (!sandboxed || !toolOutput.contains(QLatin1String("Read-only file system")))
        return {};
    return tr("The sandbox allows writes only in the agent's working directory (and the paths it "
              "lists as writable).");
}

QString hostPort(const QString &host, int port) {
    const QString h = host.contains(u':') && !host.startsWith(u'[') ? u'[' + host + u']' : host;
    return h + u':' + QString::number(port);
}

QString sandboxBlockedLine(const QString &where, int times) {
    const QString line =
        tr("Sandbox blocked a connection to %1 (not on this agent's allow-list)").arg(where);
    return times > 1 ? line + tr(" (%1 times)").arg(times) : line;
}

QString sandboxBlockedTally(int count, const QString &last) {
    if (count <= 0)
        return {};
    return tr("Sandbox blocked %1 connection(s) while this monitor watched (last: %2)")
        .arg(count)
        .arg(last);
}

} // namespace flotilla::monitor
