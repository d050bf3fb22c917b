#pragma once
// Temporary git repositories for the worktree suites, driven with the real git. Hermetic: git
// runs with the rig's agent environment (a temporary HOME, GIT_CONFIG_NOSYSTEM=1), and the test's
// own commits pass their identity with -c, so nothing depends on the machine's git config.
// Header-only: nothing here needs moc. Each git call blocks for a few milliseconds only.

#include "support/AgentRig.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>

namespace flotilla::test {

struct GitOut {
    int exitCode = -1;
    QString out; // stdout, trimmed
    QString err;
};

class GitRepo final {
public:
    // `withIdentity`: user.name/user.email in the repository's own config (without: the service
    // must bring its own to commit).
    GitRepo(QString path, QProcessEnvironment env)
        : m_path(std::move(path))
        , m_env(std::move(env)) {}

    // The rig's agents' environment, without system-wide git config: what the service runs git
    // with too (the rig's tweak must have inserted GIT_CONFIG_NOSYSTEM).
    static void hermetic(ServerConfig &c) {
        c.agentEnvironment.insert(QStringLiteral("GIT_CONFIG_NOSYSTEM"), QStringLiteral("1"));
    }

    // git init -b main, the files, one commit "initial".
    bool init(const QMap<QString, QByteArray> &files, bool withIdentity = true) {
        QDir().mkpath(m_path);
        if (run({QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"),
                 QStringLiteral("main")})
                .exitCode != 0)
            return false;
        if (withIdentity) {
            run({QStringLiteral("config"), QStringLiteral("user.name"),
                 QStringLiteral("Repo Owner")});
            run({QStringLiteral("config"), QStringLiteral("user.email"),
                 QStringLiteral("owner@example.org")});
        }
        for (auto it = files.constBegin(); it != files.constEnd(); ++it)
            write(it.key(), it.value());
        return commitAll(QStringLiteral("initial"));
    }

    GitOut run(const QStringList &args, const QString &dir = {}) const {
        QProcess p;
        p.setProcessEnvironment(m_env);
        p.setWorkingDirectory(dir.isEmpty() ? m_path : dir);
        p.start(QStringLiteral("git"), args);
        GitOut r;
        if (!p.waitForFinished(15000))
            return r;
        r.exitCode = p.exitCode();
        r.out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        r.err = QString::fromUtf8(p.readAllStandardError()).trimmed();
        return r;
    }

    // `git add -A && git commit` with the test's own identity.
    bool commitAll(const QString &message, const QString &dir = {}) const {
        return run({QStringLiteral("add"), QStringLiteral("-A")}, dir).exitCode == 0 &&
               run({QStringLiteral("-c"), QStringLiteral("user.name=Test"), QStringLiteral("-c"),
                    QStringLiteral("user.email=test@example.org"), QStringLiteral("commit"),
                    QStringLiteral("-q"), QStringLiteral("-m"), message},
                   dir)
                       .exitCode == 0;
    }

    QString head(const QString &dir = {}) const {
        return run({QStringLiteral("rev-parse"), QStringLiteral("HEAD")}, dir).out;
    }
    QString rev(const QString &ref) const {
        return run({QStringLiteral("rev-parse"), QStringLiteral("--verify"), QStringLiteral("-q"),
                    ref})
            .out;
    }
    // `git status --porcelain` (untracked files included).
    QString status(const QString &dir = {}) const {
        return run({QStringLiteral("status"), QStringLiteral("--porcelain")}, dir).out;
    }

    void write(const QString &relative, const QByteArray &content, const QString &dir = {}) const {
        const QString file = (dir.isEmpty() ? m_path : dir) + QLatin1Char('/') + relative;
        QDir().mkpath(QFileInfo(file).absolutePath());
        QFile f(file);
        if (f.open(QIODevice::WriteOnly))
            f.write(content);
    }
    static QByteArray read(const QString &file) {
        QFile f(file);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }

    QString path() const { return m_path; }

private:
    QString m_path;
    QProcessEnvironment m_env;
};

} // namespace flotilla::test
