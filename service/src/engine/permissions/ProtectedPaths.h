#pragma once
// Paths no agent tool use may name: the service's token file, its config directory (flotillad.env
// may hold AUTH_TOKEN), its data directory (secrets, the database, the agents' credential files)
// and flotillad's own /proc entries (environ, cmdline, mem). Agents run as the user and could
// read them; with the service token an agent would hold every right its own scoped token
// withholds (docs/security.md). A tool use whose input names one of them is denied by the
// permission hook, in every permission mode.
//
// A tripwire, not a wall. Before matching, each string is also read as a shell would spell a path
// out: quotes and backslashes dropped, $HOME, ${HOME} and a leading ~ expanded, $PPID and
// ${PPID} taken for flotillad, and every absolute path cleaned (//, /./ and .. resolved). What a
// command computes (globs, variables of its own, base64, a script it writes first) is not seen.
// It stops a model following an injected instruction in plain words, and makes an obfuscated
// attempt visible to the user who is asked to approve it; the boundary is the sandbox.

#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace flotilla {

class ProtectedPaths final {
public:
    ProtectedPaths() = default;
    // `home`: the user's home directory, for the ~ and $HOME spellings. `servicePid`: flotillad's
    // own process, whose /proc entries are protected too (0: none).
    ProtectedPaths(const QStringList &paths, const QString &home, qint64 servicePid = 0);

    // The first protected path a string anywhere in `toolInput` names, or empty.
    QString namedIn(const QJsonValue &toolInput) const;
    bool isEmpty() const { return m_paths.isEmpty() && m_servicePid == 0; }

    // `text` as the tripwire reads it (see above); public for its tests.
    QString normalized(const QString &text) const;

private:
    QString namedInText(const QString &text) const;
    QString namedAsPath(const QString &text) const;
    QStringList m_paths; // clean absolute paths
    QString m_home;
    qint64 m_servicePid = 0;
};

} // namespace flotilla
