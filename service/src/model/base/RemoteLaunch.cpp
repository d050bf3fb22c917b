#include "base/RemoteLaunch.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>

namespace flotilla {

namespace {
// $0 is a name for ps; $1 the run directory, $2 the working directory, then the command. A
// missing directory is the remote's 127 with a message, as a missing program is. The trap
// removes the shipped files however the program ends (not on SIGKILL of the shell).
const char *const kWrapper =
    "umask 077; d=$1; c=$2; shift 2; mkdir -p \"$d\" || exit 127; echo $$ >\"$d/pid\"; "
    "trap 'rm -rf \"$d\"' EXIT; trap 'exit 143' TERM; trap 'exit 129' HUP; "
    "while IFS= read -r l && [ -n \"$l\" ]; do k=${l%%=*}; v=$(printf '%b.' \"${l#*=}\"); "
    "v=${v%.}; case $k in E*) export \"${k#E}=$v\";; F*) printf '%s' \"$v\" >\"$d/${k#F}\";; "
    "esac; done; cd \"$c\" || { echo \"flotilla: no directory $c on $(hostname)\" >&2; exit 127; "
    "}; "
    "umask 022; \"$@\"";
} // namespace

QString shellQuote(const QString &word) {
    QString out = word;
    out.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + out + QLatin1Char('\'');
}

QByteArray escapeForPrintf(const QByteArray &value) {
    QByteArray out;
    out.reserve(value.size());
    for (const char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c < 0x20 || c == 0x7f)
            out += "\\0" + QByteArray::number(c, 8).rightJustified(3, '0');
        else
            out += ch;
    }
    return out;
}

RemoteCommand remoteCommand(const RemoteSpec &remote, const QString &program,
                            const QStringList &arguments, const QString &cwd,
                            const QProcessEnvironment &environment) {
    RemoteCommand out;
    QHash<QString, QString> moved; // local file -> its copy there
    QByteArray files;
    for (const QString &file : remote.files) {
        if (file.isEmpty())
            continue;
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly)) {
            out.error = QStringLiteral("cannot read %1 to send it: %2").arg(file, f.errorString());
            return out;
        }
        const QString name = QFileInfo(file).fileName();
        moved.insert(file, remote.runDir + QLatin1Char('/') + name);
        files += 'F' + name.toUtf8() + '=' + escapeForPrintf(f.readAll()) + '\n';
    }
    const auto rewrite = [&moved](const QString &value) { return moved.value(value, value); };
    QByteArray env;
    for (const QString &name : remote.sendEnvironment) {
        if (environment.contains(name))
            env += 'E' + name.toUtf8() + '=' +
                   escapeForPrintf(rewrite(environment.value(name)).toUtf8()) + '\n';
    }
    out.stdinPreamble = env + files + '\n';
    QStringList words{QStringLiteral("sh"),
                      QStringLiteral("-c"),
                      shellQuote(QString::fromLatin1(kWrapper)),
                      QStringLiteral("flotilla"),
                      shellQuote(remote.runDir),
                      shellQuote(cwd),
                      shellQuote(program)};
    for (const QString &arg : arguments)
        words << shellQuote(rewrite(arg));
    out.program = remote.ssh;
    out.arguments = remote.sshOptions;
    out.arguments << remote.destination << QStringLiteral("--") << words.join(QLatin1Char(' '));
    out.signal.ssh = remote.ssh;
    out.signal.arguments = remote.sshOptions;
    out.signal.arguments << remote.destination << QStringLiteral("--");
    out.signal.runDir = remote.runDir;
    return out;
}

void signalRemote(const RemoteSignal &target, int signal) {
    if (!target.isSet())
        return;
    // A group that already ended has no pid file any more: nothing to say.
    const QString command = QStringLiteral("p=$(cat %1/pid 2>/dev/null) && kill -%2 -- \"-$p\" "
                                           "2>/dev/null")
                                .arg(shellQuote(target.runDir))
                                .arg(signal);
    QProcess::startDetached(target.ssh, QStringList(target.arguments) << command);
}

} // namespace flotilla
