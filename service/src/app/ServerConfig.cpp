#include "app/ServerConfig.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace flotilla {

namespace {
const char kDescription[] =
    "Flotilla service: runs and orchestrates coding agents.\n"
    "REST API under /api and the WebSocket event channel (/ws) on one port.\n\n"
    "Environment:\n"
    "  AUTH_TOKEN      token required on every route except /api/health (X-Auth-Token header)\n"
    "  FLOTILLA_PORT   default for --port\n"
    "  FLOTILLA_CLAUDE_BIN  default for --claude-bin\n\n"
    "Exit codes: 0 clean stop (SIGTERM/SIGINT), 2 usage error, 3 cannot listen,\n"
    "4 data directory unusable.";
} // namespace

ParsedCommandLine parseCommandLine(const QStringList &arguments, const QProcessEnvironment &env) {
    ParsedCommandLine out;
    ServerConfig &cfg = out.config;

    QCommandLineParser p;
    p.setApplicationDescription(QString::fromLatin1(kDescription));
    const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")},
                                  QStringLiteral("Show this help and exit."));
    const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                     QStringLiteral("Show the version and exit."));
    const QCommandLineOption port(
        QStringLiteral("port"),
        QStringLiteral("TCP port (default 5174, or FLOTILLA_PORT; 0 picks a free one)."),
        QStringLiteral("port"));
    const QCommandLineOption host(QStringLiteral("host"),
                                  QStringLiteral("Address to bind (default 127.0.0.1)."),
                                  QStringLiteral("address"));
    const QCommandLineOption listenAll(
        QStringLiteral("listen-all"),
        QStringLiteral("Bind every interface; requires AUTH_TOKEN unless --insecure."));
    const QCommandLineOption insecure(QStringLiteral("insecure"),
                                      QStringLiteral("Allow --listen-all without a token."));
    const QCommandLineOption dataDir(
        QStringLiteral("data-dir"),
        QStringLiteral("State directory (default ~/.local/share/flotilla)."),
        QStringLiteral("dir"));
    const QCommandLineOption maxBody(
        QStringLiteral("max-body-bytes"),
        QStringLiteral("Largest request body accepted (default 1048576)."),
        QStringLiteral("bytes"));
    const QCommandLineOption claudeBin(
        QStringLiteral("claude-bin"),
        QStringLiteral(
            "Claude Code CLI to run (default: FLOTILLA_CLAUDE_BIN, then claude on PATH)."),
        QStringLiteral("path"));
    const QCommandLineOption allowOrigin(
        QStringLiteral("allow-origin"),
        QStringLiteral("Extra Origin allowed to open the WebSocket (repeatable)."),
        QStringLiteral("origin"));
    p.addOptions(
        {help, version, port, host, listenAll, insecure, dataDir, maxBody, allowOrigin, claudeBin});

    auto usage = [&](const QString &why) {
        out.exitCode = exitcode::kUsage;
        out.message = QStringLiteral("flotillad: ") + why + QStringLiteral(" (see --help)");
        return out;
    };

    if (!p.parse(arguments))
        return usage(p.errorText());
    if (p.isSet(help)) {
        out.exitCode = exitcode::kOk;
        out.message = p.helpText();
        return out;
    }
    if (p.isSet(version)) {
        out.exitCode = exitcode::kOk;
        out.message = QStringLiteral("flotillad ") + QStringLiteral(FLOTILLA_VERSION);
        return out;
    }
    if (!p.positionalArguments().isEmpty())
        return usage(
            QStringLiteral("unexpected argument '%1'").arg(p.positionalArguments().constFirst()));

    const QString portText =
        p.isSet(port) ? p.value(port) : env.value(QStringLiteral("FLOTILLA_PORT"));
    if (!portText.isEmpty()) {
        bool ok = false;
        const uint v = portText.toUInt(&ok);
        if (!ok || v > 65535)
            return usage(QStringLiteral("invalid port '%1'").arg(portText));
        cfg.port = quint16(v);
    }
    if (p.isSet(listenAll) && p.isSet(host))
        return usage(QStringLiteral("--host and --listen-all exclude each other"));
    if (p.isSet(listenAll))
        cfg.host = QHostAddress(QHostAddress::Any);
    if (p.isSet(host)) {
        const QString h = p.value(host);
        cfg.host = h == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                   : QHostAddress(h);
        if (cfg.host.isNull())
            return usage(QStringLiteral("invalid --host address '%1'").arg(h));
    }
    cfg.authToken = env.value(QStringLiteral("AUTH_TOKEN")).toUtf8();
    cfg.insecure = p.isSet(insecure);
    if (!cfg.host.isLoopback() && cfg.authToken.isEmpty() && !cfg.insecure)
        return usage(
            QStringLiteral("refusing to listen on %1 without AUTH_TOKEN; set it or pass --insecure")
                .arg(cfg.host.toString()));

    if (p.isSet(maxBody)) {
        bool ok = false;
        const qint64 v = p.value(maxBody).toLongLong(&ok);
        if (!ok || v < 1024 || v > (qint64(1) << 30))
            return usage(QStringLiteral("--max-body-bytes must be between 1024 and 1073741824"));
        cfg.http.limits.maxBodyBytes = v;
    }
    cfg.http.allowedOrigins = p.values(allowOrigin);
    cfg.dataDir = p.isSet(dataDir)
                      ? p.value(dataDir)
                      : QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (cfg.dataDir.isEmpty())
        return usage(QStringLiteral("no data directory: pass --data-dir"));

    // A missing CLI is not fatal: the service runs, and agents report it on their first message.
    cfg.claudeBin =
        p.isSet(claudeBin) ? p.value(claudeBin) : env.value(QStringLiteral("FLOTILLA_CLAUDE_BIN"));
    if (cfg.claudeBin.isEmpty())
        cfg.claudeBin = QStandardPaths::findExecutable(QStringLiteral("claude"));
    cfg.claudeHome = env.value(QStringLiteral("CLAUDE_CONFIG_DIR"));
    if (cfg.claudeHome.isEmpty())
        cfg.claudeHome =
            env.value(QStringLiteral("HOME"), QDir::homePath()) + QStringLiteral("/.claude");
    cfg.agentEnvironment = env;
    return out;
}

} // namespace flotilla
