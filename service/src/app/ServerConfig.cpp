#include "app/ServerConfig.h"

#include "usage/BudgetValidation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>
#include <QUrl>

namespace flotilla {

namespace {
const char kDescription[] =
    "Flotilla service: runs and orchestrates coding agents.\n"
    "REST API under /api and the WebSocket event channel (/ws) on one port.\n\n"
    "Environment:\n"
    "  AUTH_TOKEN      token required on every route except /api/health (X-Auth-Token header);\n"
    "                  wins over --token-file. Without either, any local user can drive the\n"
    "                  service.\n"
    "  FLOTILLA_PORT   default for --port\n"
    "  FLOTILLA_CLAUDE_BIN  default for --claude-bin\n"
    "  FLOTILLA_CODEX_BIN   default for --codex-bin\n\n"
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
    const QCommandLineOption codexBin(
        QStringLiteral("codex-bin"),
        QStringLiteral("Codex CLI to run (default: FLOTILLA_CODEX_BIN, then codex on PATH)."),
        QStringLiteral("path"));
    const QCommandLineOption worktreesDir(
        QStringLiteral("worktrees-dir"),
        QStringLiteral("Where agents' git worktrees go (default: FLOTILLA_WORKTREES_DIR, then "
                       "<data dir>-worktrees)."),
        QStringLiteral("dir"));
    const QCommandLineOption allowOrigin(
        QStringLiteral("allow-origin"),
        QStringLiteral("Extra Origin (scheme://host[:port]) allowed to call the REST API and open "
                       "the WebSocket from a browser, with CORS grants (repeatable)."),
        QStringLiteral("origin"));
    const QCommandLineOption allowHost(
        QStringLiteral("allow-host"),
        QStringLiteral("Extra name accepted in the Host header besides localhost, 127.0.0.1, "
                       "[::1] and the bound address, e.g. behind a reverse proxy (repeatable)."),
        QStringLiteral("name"));
    const QCommandLineOption tokenFile(
        QStringLiteral("token-file"),
        QStringLiteral("Read the token from this file (mode 0600); created with a fresh random "
                       "token when missing. AUTH_TOKEN wins over it."),
        QStringLiteral("path"));
    const QCommandLineOption idleTimeout(
        QStringLiteral("idle-timeout"),
        QStringLiteral("End an agent's CLI process after this many seconds without work; the "
                       "next message resumes its session (default 600; 0: never; agents' own "
                       "idleTimeoutSeconds wins)."),
        QStringLiteral("seconds"));
    const QCommandLineOption tlsCert(
        QStringLiteral("tls-cert"),
        QStringLiteral("Serve HTTPS and WSS with this PEM certificate (chain); needs --tls-key."),
        QStringLiteral("path"));
    const QCommandLineOption tlsKey(
        QStringLiteral("tls-key"),
        QStringLiteral("The unencrypted PEM private key (RSA or EC) of --tls-cert."),
        QStringLiteral("path"));
    p.addOptions({help, version, port, host, listenAll, insecure, dataDir, maxBody, allowOrigin,
                  allowHost, tokenFile, claudeBin, codexBin, worktreesDir, idleTimeout, tlsCert,
                  tlsKey});

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
    if (p.isSet(tokenFile)) {
        cfg.tokenFile = p.value(tokenFile);
        if (cfg.tokenFile.isEmpty())
            return usage(QStringLiteral("--token-file needs a path"));
    }
    cfg.insecure = p.isSet(insecure);
    if (p.isSet(tlsCert) != p.isSet(tlsKey))
        return usage(QStringLiteral("--tls-cert and --tls-key go together"));
    cfg.tlsCert = p.value(tlsCert);
    cfg.tlsKey = p.value(tlsKey);
    if (p.isSet(tlsCert) && (cfg.tlsCert.isEmpty() || cfg.tlsKey.isEmpty()))
        return usage(QStringLiteral("--tls-cert and --tls-key need a path each"));
    if (!cfg.host.isLoopback() && cfg.authToken.isEmpty() && cfg.tokenFile.isEmpty() &&
        !cfg.insecure)
        return usage(QStringLiteral("refusing to listen on %1 without a token; set AUTH_TOKEN, "
                                    "pass --token-file PATH, or pass --insecure")
                         .arg(cfg.host.toString()));

    if (p.isSet(maxBody)) {
        bool ok = false;
        const qint64 v = p.value(maxBody).toLongLong(&ok);
        if (!ok || v < 1024 || v > (qint64(1) << 30))
            return usage(QStringLiteral("--max-body-bytes must be between 1024 and 1073741824"));
        cfg.http.limits.maxBodyBytes = v;
    }
    cfg.http.allowedOrigins = p.values(allowOrigin);
    for (const QString &o : cfg.http.allowedOrigins) {
        const QUrl url(o);
        if (o == QLatin1String("*") || !url.isValid() || url.host().isEmpty() ||
            (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")) ||
            !(url.path().isEmpty() || url.path() == QLatin1String("/")))
            return usage(QStringLiteral("invalid --allow-origin '%1': give scheme://host[:port], "
                                        "e.g. https://flotilla.example.org")
                             .arg(o));
    }
    if (p.isSet(idleTimeout)) {
        bool ok = false;
        const int v = p.value(idleTimeout).toInt(&ok);
        if (!ok || v < 0 || v > limits::kIdleTimeoutMax)
            return usage(QStringLiteral("--idle-timeout must be a whole number of seconds from 0 "
                                        "(never) to %1")
                             .arg(limits::kIdleTimeoutMax));
        cfg.idleTimeoutSeconds = v;
    }
    cfg.http.allowedHosts = p.values(allowHost);
    for (const QString &h : cfg.http.allowedHosts) {
        QString bare = h;
        if (bare.startsWith(QLatin1Char('[')) && bare.endsWith(QLatin1Char(']')))
            bare = bare.mid(1, bare.size() - 2);
        const bool ipv6 = QHostAddress(bare).protocol() == QAbstractSocket::IPv6Protocol;
        if (h.isEmpty() || h.contains(QLatin1Char('/')) || h.contains(QLatin1Char('*')) ||
            h.contains(QLatin1Char(' ')) || (h.contains(QLatin1Char(':')) && !ipv6))
            return usage(QStringLiteral("invalid --allow-host '%1': give a host name or address, "
                                        "without port or scheme")
                             .arg(h));
    }
    cfg.dataDir = p.isSet(dataDir)
                      ? p.value(dataDir)
                      : QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
    if (cfg.dataDir.isEmpty())
        return usage(QStringLiteral("no data directory: pass --data-dir"));

    cfg.worktreesDir = p.isSet(worktreesDir) ? p.value(worktreesDir)
                                             : env.value(QStringLiteral("FLOTILLA_WORKTREES_DIR"));

    // A missing CLI is not fatal: the service runs, and agents report it on their first message.
    cfg.claudeBin =
        p.isSet(claudeBin) ? p.value(claudeBin) : env.value(QStringLiteral("FLOTILLA_CLAUDE_BIN"));
    if (cfg.claudeBin.isEmpty())
        cfg.claudeBin = QStandardPaths::findExecutable(QStringLiteral("claude"));
    cfg.codexBin =
        p.isSet(codexBin) ? p.value(codexBin) : env.value(QStringLiteral("FLOTILLA_CODEX_BIN"));
    if (cfg.codexBin.isEmpty())
        cfg.codexBin = QStandardPaths::findExecutable(QStringLiteral("codex"));
    cfg.codexHome = env.value(QStringLiteral("CODEX_HOME"));
    if (cfg.codexHome.isEmpty())
        cfg.codexHome =
            env.value(QStringLiteral("HOME"), QDir::homePath()) + QStringLiteral("/.codex");
    cfg.claudeHome = env.value(QStringLiteral("CLAUDE_CONFIG_DIR"));
    if (cfg.claudeHome.isEmpty())
        cfg.claudeHome =
            env.value(QStringLiteral("HOME"), QDir::homePath()) + QStringLiteral("/.claude");
    cfg.agentEnvironment = env;
    cfg.configDir = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                    QStringLiteral("/flotilla");
    return out;
}

} // namespace flotilla
