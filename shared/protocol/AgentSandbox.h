#pragma once
// An agent's sandbox as the agent object carries it (docs/api.md "Sandbox"):
// `sandbox: {mode, network, allowHosts, writable, hidden}`, or null for the service's default
// (--sandbox-default for `auto` agents, off for `ask` agents).

#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace flotilla {

struct AgentSandbox {
    QString mode;           // "off" or "workspace" (SandboxNames.h); empty: not set (JSON null)
    QString network;        // "full" (default) or "allowlist"
    QStringList allowHosts; // "host[:port]", for network "allowlist"
    QStringList writable;   // absolute paths bound read-write besides the working directory
    QStringList hidden;     // absolute paths hidden besides the service's own and the secrets
    // The user's consent that, where user namespaces are not allowed (so no sandbox can start),
    // a CLI whose own sandbox needs them runs its commands without one (Codex:
    // danger-full-access) rather than failing every command.
    bool allowUnconfined = false;

    bool isSet() const { return !mode.isEmpty(); }
    bool confines() const; // mode workspace
    // null when not set.
    QJsonValue toJson() const;
    // Anything that is not an object with a mode: not set. Lenient (stored or received objects);
    // requests are checked by domain/SandboxValidation.h.
    static AgentSandbox fromJson(const QJsonValue &value);

    friend bool operator==(const AgentSandbox &a, const AgentSandbox &b) {
        return a.mode == b.mode && a.network == b.network && a.allowHosts == b.allowHosts &&
               a.writable == b.writable && a.hidden == b.hidden &&
               a.allowUnconfined == b.allowUnconfined;
    }
    friend bool operator!=(const AgentSandbox &a, const AgentSandbox &b) { return !(a == b); }
};

} // namespace flotilla
