#pragma once
// The target of an ssh:// service, ssh://[user@]host[:sshPort][?port=<remote flotillad port>],
// parsed and checked at the edge: what passes here is safe to hand to ssh as its destination.

#include <QString>
#include <QUrl>

#include <optional>

namespace flotilla::monitor {

// flotillad's own default port: the remote port when an ssh:// URL names none.
inline constexpr int kDefaultRemoteServicePort = 5174;

// ssh://[user@]host[:sshPort][?port=<flotillad's port on the remote loopback>]
struct SshTarget {
    QString user;    // empty: ssh decides (~/.ssh/config's User, else the local user name)
    QString host;    // a name, an address or a Host alias of ~/.ssh/config
    int sshPort = 0; // 0: ssh decides (~/.ssh/config's Port, else 22)
    int remotePort = kDefaultRemoteServicePort;
    QString destination() const; // [user@]host, as ssh takes it
    QUrl url() const;            // the canonical ssh:// URL
};

bool isSshUrl(const QUrl &url);
// The target of an ssh:// URL, or nullopt with `error` naming the bad part. Refuses what ssh
// could read as an option (a user or host starting with '-'), user names outside
// [A-Za-z0-9._-], hosts outside [A-Za-z0-9.:_-], a password (keys only: ssh never prompts
// here), a path or fragment, query items other than `port`, and ports outside 1..65535.
std::optional<SshTarget> parseSshTarget(const QUrl &url, QString *error);

} // namespace flotilla::monitor
