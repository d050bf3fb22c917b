#pragma once
// Paths no agent tool use may name: the service's token file, its config directory (flotillad.env
// may hold AUTH_TOKEN) and its data directory (secrets, the database). Agents run as the user and
// could read them; with the service token an agent would hold every right its own scoped token
// withholds (docs/security.md). A tool use whose input names one of them is denied by the
// permission hook, in every permission mode.
//
// A tripwire, not a wall: it sees paths written out (absolute, with ~, $HOME or ${HOME}), not
// paths a command computes (globs, string tricks). It stops a model following an injected
// instruction in plain words, and makes an obfuscated attempt visible to the user who is asked
// to approve it.

#include <QJsonValue>
#include <QString>
#include <QStringList>

namespace flotilla {

class ProtectedPaths final {
public:
    ProtectedPaths() = default;
    // `home`: the user's home directory, for the ~ and $HOME spellings.
    ProtectedPaths(const QStringList &paths, const QString &home);

    // The first protected path a string anywhere in `toolInput` names, or empty.
    QString namedIn(const QJsonValue &toolInput) const;
    bool isEmpty() const { return m_spellings.isEmpty(); }

private:
    QString namedInText(const QString &text) const;
    QList<QPair<QString, QString>> m_spellings; // spelling -> the path it names
};

} // namespace flotilla
