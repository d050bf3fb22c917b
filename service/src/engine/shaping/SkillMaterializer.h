#pragma once
// Writes each agent's skills where its CLI reads them: one directory per agent under the data
// directory (`<data dir>/agent-skills/<agent id>`), laid out as a Claude Code plugin named
// `flotilla` (.claude-plugin/plugin.json and skills/<slug>/SKILL.md) that the CLI loads with
// --plugin-dir; Codex reads the same skills/ folder as an extra skills root. Nothing is written
// into the user's repository or home directory.
//
// A directory is rewritten only when its skills changed (the fingerprint), by building a new one
// beside it and renaming it into place, so a CLI starting meanwhile never reads half a skill.

#include "shaping/SkillCatalog.h"

#include <QHash>
#include <QStringList>

#include <QString>
#include <functional>

namespace flotilla {

class SkillMaterializer final {
    Q_DISABLE_COPY_MOVE(SkillMaterializer)
public:
    struct Written {
        QString dir; // empty: no skills
        QString fingerprint;
    };

    explicit SkillMaterializer(QString root);
    ~SkillMaterializer();

    // The agent's skills, known by `stamps` (SkillCatalog::stamp, in order; empty: none): when
    // they differ from what was written last, `load` gives the skills and they are written.
    // Nothing is read or hashed while they stay the same, which is every turn but the first
    // after a change.
    Written write(const QString &agentId, const QStringList &stamps,
                  const std::function<QList<Skill>()> &load);
    // `text` in the agent's instructions file (beside its skills directory), when it is longer
    // than kArgMaxBytes; the path, or empty (short text: the file is removed).
    QString writeInstructions(const QString &agentId, const QString &text);
    // An argument of at most this many bytes passes execve (MAX_ARG_STRLEN is 128 KiB).
    static constexpr int kArgMaxBytes = 96 * 1024;

    // Removes the agent's directory and instructions file (the agent was deleted).
    void forget(const QString &agentId);

    // SKILL.md as both CLIs read it: YAML front matter (name, description, allowed-tools) and
    // the body.
    static QByteArray skillFile(const Skill &skill);

private:
    QString m_root;
    QHash<QString, QString> m_written; // agent id -> fingerprint on disk
};

} // namespace flotilla
