#include "core/SshTarget.h"

#include <QRegularExpression>
#include <QUrlQuery>

#include <algorithm>

namespace flotilla::monitor {

namespace {
bool validPort(int port) {
    return port >= 1 && port <= 65535;
}
} // namespace

QString SshTarget::destination() const {
    return user.isEmpty() ? host : user + QLatin1Char('@') + host;
}

QUrl SshTarget::url() const {
    QUrl url;
    url.setScheme(QStringLiteral("ssh"));
    url.setUserName(user);
    url.setHost(host);
    if (sshPort > 0)
        url.setPort(sshPort);
    url.setQuery(QStringLiteral("port=") + QString::number(remotePort));
    return url;
}

bool isSshUrl(const QUrl &url) {
    return url.scheme() == QLatin1String("ssh"); // QUrl keeps schemes in lower case
}

std::optional<SshTarget> parseSshTarget(const QUrl &url, QString *error) {
    const auto refuse = [error](const QString &why) {
        if (error)
            *error = why;
        return std::optional<SshTarget>();
    };
    if (!isSshUrl(url))
        return refuse(QStringLiteral("not an ssh:// URL"));
    if (!url.isValid())
        // QUrl's own reason, without the echo of the whole URL it appends.
        return refuse(QStringLiteral("invalid ssh:// URL: ") +
                      url.errorString().section(QStringLiteral("; source was"), 0, 0));
    // Only what ssh takes as a plain user or host name: nothing it could read as an option
    // (a leading '-', also percent-encoded), no spaces or quotes for a config's %-expansions.
    static const QRegularExpression userRe(QStringLiteral("^[A-Za-z0-9._][A-Za-z0-9._-]*$"));
    static const QRegularExpression hostRe(QStringLiteral("^[A-Za-z0-9._:][A-Za-z0-9._:-]*$"));
    SshTarget t;
    t.host = url.host(QUrl::FullyDecoded);
    if (t.host.isEmpty())
        return refuse(QStringLiteral("the ssh:// URL has no host (ssh://user@host?port=5174)"));
    if (t.host.startsWith(QLatin1Char('-')))
        return refuse(QStringLiteral("the host must not start with '-' (ssh would read it as an "
                                     "option)"));
    if (!hostRe.match(t.host).hasMatch())
        return refuse(QStringLiteral("the host may only contain letters, digits, '.', ':', '_' "
                                     "and '-'"));
    t.user = url.userName(QUrl::FullyDecoded);
    if (t.user.startsWith(QLatin1Char('-')))
        return refuse(QStringLiteral("the user name must not start with '-' (ssh would read it "
                                     "as an option)"));
    if (!t.user.isEmpty() && !userRe.match(t.user).hasMatch())
        return refuse(QStringLiteral("the user name may only contain letters, digits, '.', '_' "
                                     "and '-'"));
    if (!url.password().isEmpty())
        return refuse(QStringLiteral("ssh:// services log in with a key, never a password: "
                                     "remove the password from the URL"));
    if (url.port() != -1 && !validPort(url.port()))
        return refuse(QStringLiteral("the ssh port must be 1..65535"));
    t.sshPort = std::max(0, url.port());
    if (!url.path().isEmpty() && url.path() != QLatin1String("/"))
        return refuse(QStringLiteral("an ssh:// URL has no path: give the remote flotillad's "
                                     "port as ?port=5174"));
    if (url.hasFragment())
        return refuse(QStringLiteral("an ssh:// URL has no #fragment"));
    const QUrlQuery query(url);
    for (const auto &[key, value] : query.queryItems(QUrl::FullyDecoded)) {
        if (key != QLatin1String("port"))
            return refuse(QStringLiteral("unknown parameter '%1' (only port=<the remote "
                                         "flotillad's port> is understood)")
                              .arg(key));
        bool ok = false;
        t.remotePort = value.toInt(&ok);
        if (!ok || !validPort(t.remotePort))
            return refuse(QStringLiteral("port=%1 is not a port (1..65535)").arg(value));
    }
    return t;
}

} // namespace flotilla::monitor
