#include "app/ServerConfig.h"

#include "domain/BudgetValidation.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>

#include <algorithm>
#include <iterator>
#include <optional>

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

// Parsing ends early: --help or --version (exit 0) or a usage error (exit 2), with what to print.
struct Stop {
    int exitCode;
    QString message;
};
using Outcome = std::optional<Stop>;

Outcome usage(const QString &why) {
    return Stop{exitcode::kUsage,
                QStringLiteral("flotillad: ") + why + QStringLiteral(" (see --help)")};
}

// What a row reads: the parsed command line, options by any of their names, and the environment.
class Input final {
public:
    Input(const QCommandLineParser &parser, const QProcessEnvironment &env)
        : m_parser(parser)
        , m_env(env) {}

    const QCommandLineParser &parser() const { return m_parser; }
    const QProcessEnvironment &environment() const { return m_env; }

    bool isSet(const char *option) const { return m_parser.isSet(QLatin1String(option)); }
    QString value(const char *option) const { return m_parser.value(QLatin1String(option)); }
    QStringList values(const char *option) const { return m_parser.values(QLatin1String(option)); }
    QString env(const char *name) const { return m_env.value(QLatin1String(name)); }
    // The option's value when it is given, else the environment variable's: flags win.
    QString valueOrEnv(const char *option, const char *name) const {
        return isSet(option) ? value(option) : env(name);
    }

private:
    const QCommandLineParser &m_parser;
    const QProcessEnvironment &m_env;
};

// One row of the table: an option (names, value name, help text) and what it does to the
// ServerConfig, or refuses. A row without names is a step of its own: an environment variable
// or a check across options.
struct OptionRow {
    QStringList names; // empty: no option
    QString valueName; // empty: a flag
    QString help;
    Outcome (*apply)(const Input &in, ServerConfig &cfg);

    QCommandLineOption option() const { return QCommandLineOption(names, help, valueName); }
};

// The rows in the order they are applied: the first refusal is the one reported.
const QList<OptionRow> &optionTable() {
    static const QList<OptionRow> rows{
        {{QStringLiteral("h"), QStringLiteral("help")},
         {},
         QStringLiteral("Show this help and exit."),
         [](const Input &in, ServerConfig &) -> Outcome {
             if (in.isSet("help"))
                 return Stop{exitcode::kOk, in.parser().helpText()};
             return std::nullopt;
         }},
        {{QStringLiteral("v"), QStringLiteral("version")},
         {},
         QStringLiteral("Show the version and exit."),
         [](const Input &in, ServerConfig &) -> Outcome {
             if (in.isSet("version"))
                 return Stop{exitcode::kOk,
                             QStringLiteral("flotillad ") + QStringLiteral(FLOTILLA_VERSION)};
             return std::nullopt;
         }},
        {{},
         {},
         {},
         [](const Input &in, ServerConfig &) -> Outcome {
             const QStringList positional = in.parser().positionalArguments();
             if (!positional.isEmpty())
                 return usage(
                     QStringLiteral("unexpected argument '%1'").arg(positional.constFirst()));
             return std::nullopt;
         }},
        {{QStringLiteral("port")},
         QStringLiteral("port"),
         QStringLiteral("TCP port (default 5174, or FLOTILLA_PORT; 0 picks a free one)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             const QString text = in.valueOrEnv("port", "FLOTILLA_PORT");
             if (text.isEmpty())
                 return std::nullopt;
             bool ok = false;
             const uint v = text.toUInt(&ok);
             if (!ok || v > 65535)
                 return usage(QStringLiteral("invalid port '%1'").arg(text));
             cfg.port = quint16(v);
             return std::nullopt;
         }},
        {{QStringLiteral("listen-all")},
         {},
         QStringLiteral("Bind every interface; requires AUTH_TOKEN unless --insecure."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (!in.isSet("listen-all"))
                 return std::nullopt;
             if (in.isSet("host"))
                 return usage(QStringLiteral("--host and --listen-all exclude each other"));
             cfg.host = QHostAddress(QHostAddress::Any);
             return std::nullopt;
         }},
        {{QStringLiteral("host")},
         QStringLiteral("address"),
         QStringLiteral("Address to bind (default 127.0.0.1)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (!in.isSet("host"))
                 return std::nullopt;
             const QString h = in.value("host");
             cfg.host = h == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                        : QHostAddress(h);
             if (cfg.host.isNull())
                 return usage(QStringLiteral("invalid --host address '%1'").arg(h));
             return std::nullopt;
         }},
        {{},
         {},
         {},
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.authToken = in.env("AUTH_TOKEN").toUtf8();
             return std::nullopt;
         }},
        {{QStringLiteral("token-file")},
         QStringLiteral("path"),
         QStringLiteral("Read the token from this file (mode 0600); created with a fresh random "
                        "token when missing. AUTH_TOKEN wins over it."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (!in.isSet("token-file"))
                 return std::nullopt;
             cfg.tokenFile = in.value("token-file");
             if (cfg.tokenFile.isEmpty())
                 return usage(QStringLiteral("--token-file needs a path"));
             return std::nullopt;
         }},
        {{QStringLiteral("insecure")},
         {},
         QStringLiteral("Allow --listen-all without a token."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.insecure = in.isSet("insecure");
             return std::nullopt;
         }},
        {{QStringLiteral("tls-cert")},
         QStringLiteral("path"),
         QStringLiteral("Serve HTTPS and WSS with this PEM certificate (chain); needs --tls-key."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (in.isSet("tls-cert") != in.isSet("tls-key"))
                 return usage(QStringLiteral("--tls-cert and --tls-key go together"));
             cfg.tlsCert = in.value("tls-cert");
             return std::nullopt;
         }},
        {{QStringLiteral("tls-key")},
         QStringLiteral("path"),
         QStringLiteral("The unencrypted PEM private key (RSA or EC) of --tls-cert."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.tlsKey = in.value("tls-key");
             if (in.isSet("tls-cert") && (cfg.tlsCert.isEmpty() || cfg.tlsKey.isEmpty()))
                 return usage(QStringLiteral("--tls-cert and --tls-key need a path each"));
             return std::nullopt;
         }},
        // Off loopback, a token (or an explicit --insecure) is required.
        {{},
         {},
         {},
         [](const Input &, ServerConfig &cfg) -> Outcome {
             if (!cfg.host.isLoopback() && cfg.authToken.isEmpty() && cfg.tokenFile.isEmpty() &&
                 !cfg.insecure)
                 return usage(QStringLiteral("refusing to listen on %1 without a token; set "
                                             "AUTH_TOKEN, pass --token-file PATH, or pass "
                                             "--insecure")
                                  .arg(cfg.host.toString()));
             return std::nullopt;
         }},
        {{QStringLiteral("max-body-bytes")},
         QStringLiteral("bytes"),
         QStringLiteral("Largest request body accepted (default 1048576)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (!in.isSet("max-body-bytes"))
                 return std::nullopt;
             bool ok = false;
             const qint64 v = in.value("max-body-bytes").toLongLong(&ok);
             if (!ok || v < 1024 || v > (qint64(1) << 30))
                 return usage(
                     QStringLiteral("--max-body-bytes must be between 1024 and 1073741824"));
             cfg.http.limits.maxBodyBytes = v;
             return std::nullopt;
         }},
        {{QStringLiteral("allow-origin")},
         QStringLiteral("origin"),
         QStringLiteral("Extra Origin (scheme://host[:port]) allowed to call the REST API and "
                        "open the WebSocket from a browser, with CORS grants (repeatable)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.http.allowedOrigins = in.values("allow-origin");
             for (const QString &o : cfg.http.allowedOrigins) {
                 const QUrl url(o);
                 if (o == QLatin1String("*") || !url.isValid() || url.host().isEmpty() ||
                     (url.scheme() != QLatin1String("http") &&
                      url.scheme() != QLatin1String("https")) ||
                     !(url.path().isEmpty() || url.path() == QLatin1String("/")))
                     return usage(QStringLiteral("invalid --allow-origin '%1': give "
                                                 "scheme://host[:port], e.g. "
                                                 "https://flotilla.example.org")
                                      .arg(o));
             }
             return std::nullopt;
         }},
        {{QStringLiteral("idle-timeout")},
         QStringLiteral("seconds"),
         QStringLiteral("End an agent's CLI process after this many seconds without work; the "
                        "next message resumes its session (default 600; 0: never; agents' own "
                        "idleTimeoutSeconds wins)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             if (!in.isSet("idle-timeout"))
                 return std::nullopt;
             bool ok = false;
             const int v = in.value("idle-timeout").toInt(&ok);
             if (!ok || v < 0 || v > limits::kIdleTimeoutMax)
                 return usage(QStringLiteral("--idle-timeout must be a whole number of seconds "
                                             "from 0 (never) to %1")
                                  .arg(limits::kIdleTimeoutMax));
             cfg.idleTimeoutSeconds = v;
             return std::nullopt;
         }},
        {{QStringLiteral("allow-host")},
         QStringLiteral("name"),
         QStringLiteral("Extra name accepted in the Host header besides localhost, 127.0.0.1, "
                        "[::1] and the bound address, e.g. behind a reverse proxy (repeatable)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.http.allowedHosts = in.values("allow-host");
             for (const QString &h : cfg.http.allowedHosts) {
                 QString bare = h;
                 if (bare.startsWith(QLatin1Char('[')) && bare.endsWith(QLatin1Char(']')))
                     bare = bare.mid(1, bare.size() - 2);
                 const bool ipv6 = QHostAddress(bare).protocol() == QAbstractSocket::IPv6Protocol;
                 if (h.isEmpty() || h.contains(QLatin1Char('/')) || h.contains(QLatin1Char('*')) ||
                     h.contains(QLatin1Char(' ')) || (h.contains(QLatin1Char(':')) && !ipv6))
                     return usage(QStringLiteral("invalid --allow-host '%1': give a host name or "
                                                 "address, without port or scheme")
                                      .arg(h));
             }
             return std::nullopt;
         }},
        {{QStringLiteral("data-dir")},
         QStringLiteral("dir"),
         QStringLiteral("State directory (default ~/.local/share/flotilla)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.dataDir =
                 in.isSet("data-dir")
                     ? in.value("data-dir")
                     : QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation);
             if (cfg.dataDir.isEmpty())
                 return usage(QStringLiteral("no data directory: pass --data-dir"));
             return std::nullopt;
         }},
        {{QStringLiteral("worktrees-dir")},
         QStringLiteral("dir"),
         QStringLiteral("Where agents' git worktrees go (default: FLOTILLA_WORKTREES_DIR, then "
                        "<data dir>-worktrees)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.worktreesDir = in.valueOrEnv("worktrees-dir", "FLOTILLA_WORKTREES_DIR");
             return std::nullopt;
         }},
        {{QStringLiteral("sandbox-default")},
         QStringLiteral("off|workspace"),
         QStringLiteral("Sandbox of auto agents that name none (default: FLOTILLA_SANDBOX_DEFAULT, "
                        "then workspace when bubblewrap works here, else off)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.sandboxDefault = in.valueOrEnv("sandbox-default", "FLOTILLA_SANDBOX_DEFAULT");
             if (!cfg.sandboxDefault.isEmpty() && cfg.sandboxDefault != QLatin1String("off") &&
                 cfg.sandboxDefault != QLatin1String("workspace"))
                 return usage(QStringLiteral("--sandbox-default must be 'off' or 'workspace', "
                                             "got '%1'")
                                  .arg(cfg.sandboxDefault));
             return std::nullopt;
         }},
        {{QStringLiteral("bwrap")},
         QStringLiteral("path"),
         QStringLiteral("bubblewrap binary for agents' sandboxes (default: FLOTILLA_BWRAP, then "
                        "bwrap on PATH)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             const QString bwrap = in.valueOrEnv("bwrap", "FLOTILLA_BWRAP");
             if (!bwrap.isEmpty())
                 cfg.bwrap = bwrap;
             return std::nullopt;
         }},
        {{QStringLiteral("ssh-config")},
         QStringLiteral("file"),
         QStringLiteral("ssh client config for the connections to hosts (ssh -F; default: "
                        "FLOTILLA_SSH_CONFIG, then your ~/.ssh/config)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.sshConfig = in.valueOrEnv("ssh-config", "FLOTILLA_SSH_CONFIG");
             if (!cfg.sshConfig.isEmpty() && !QFileInfo(cfg.sshConfig).isFile())
                 return usage(QStringLiteral("--ssh-config %1 is not a file").arg(cfg.sshConfig));
             return std::nullopt;
         }},
        // A missing CLI is not fatal: the service runs, and agents report it on their first
        // message.
        {{QStringLiteral("claude-bin")},
         QStringLiteral("path"),
         QStringLiteral(
             "Claude Code CLI to run (default: FLOTILLA_CLAUDE_BIN, then claude on PATH)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.claudeBin = in.valueOrEnv("claude-bin", "FLOTILLA_CLAUDE_BIN");
             if (cfg.claudeBin.isEmpty())
                 cfg.claudeBin = QStandardPaths::findExecutable(QStringLiteral("claude"));
             return std::nullopt;
         }},
        {{QStringLiteral("codex-bin")},
         QStringLiteral("path"),
         QStringLiteral("Codex CLI to run (default: FLOTILLA_CODEX_BIN, then codex on PATH)."),
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             cfg.codexBin = in.valueOrEnv("codex-bin", "FLOTILLA_CODEX_BIN");
             if (cfg.codexBin.isEmpty())
                 cfg.codexBin = QStandardPaths::findExecutable(QStringLiteral("codex"));
             return std::nullopt;
         }},
        // Where the CLIs keep their sessions, the agents' environment, the config directory.
        {{},
         {},
         {},
         [](const Input &in, ServerConfig &cfg) -> Outcome {
             const QString home = in.environment().value(QStringLiteral("HOME"), QDir::homePath());
             cfg.codexHome = in.env("CODEX_HOME");
             if (cfg.codexHome.isEmpty())
                 cfg.codexHome = home + QStringLiteral("/.codex");
             cfg.claudeHome = in.env("CLAUDE_CONFIG_DIR");
             if (cfg.claudeHome.isEmpty())
                 cfg.claudeHome = home + QStringLiteral("/.claude");
             cfg.agentEnvironment = in.environment();
             cfg.configDir =
                 QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation) +
                 QStringLiteral("/flotilla");
             return std::nullopt;
         }},
    };
    return rows;
}

// --help lists the options in this order; the table has them in the order they are applied.
const char *const kHelpOrder[] = {
    "help",      "version",        "port",         "host",       "listen-all", "insecure",
    "data-dir",  "max-body-bytes", "allow-origin", "allow-host", "token-file", "claude-bin",
    "codex-bin", "worktrees-dir",  "idle-timeout", "tls-cert",   "tls-key",    "sandbox-default",
    "bwrap",     "ssh-config",
};

const OptionRow &rowOf(const char *name) {
    for (const OptionRow &row : optionTable()) {
        if (row.names.contains(QLatin1String(name)))
            return row;
    }
    Q_UNREACHABLE();
}
} // namespace

ParsedCommandLine parseCommandLine(const QStringList &arguments, const QProcessEnvironment &env) {
    ParsedCommandLine out;
    QCommandLineParser p;
    p.setApplicationDescription(QString::fromLatin1(kDescription));
    for (const char *name : kHelpOrder)
        p.addOption(rowOf(name).option());
    Q_ASSERT(std::count_if(optionTable().cbegin(), optionTable().cend(), [](const OptionRow &r) {
                 return !r.names.isEmpty();
             }) == qsizetype(std::size(kHelpOrder)));

    Outcome stop = p.parse(arguments) ? std::nullopt : usage(p.errorText());
    const Input in(p, env);
    const QList<OptionRow> &rows = optionTable();
    for (auto row = rows.cbegin(); !stop && row != rows.cend(); ++row)
        stop = row->apply(in, out.config);
    if (stop) {
        out.exitCode = stop->exitCode;
        out.message = stop->message;
    }
    return out;
}

} // namespace flotilla
