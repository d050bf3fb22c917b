#pragma once
// What shapes an agent's CLI process besides its model: the instructions appended to the CLI's
// own system prompt, the skills it can use and the tools it may or may not use. The runtime asks
// before every turn; when the answer differs from what the running process was started with, the
// change reaches the agent on that turn (a reconfigure where the CLI allows it, else a restart
// that resumes the same session). shaping/InstructionComposer implements it.

#include <QString>
#include <QStringList>

namespace flotilla {

struct Agent;

struct AgentShape {
    // Global system prompt, area, class and the agent's own instructions, composed in that
    // order (docs/api.md "Instructions").
    QString instructions;
    // The same text in a file, when it is too long for one command-line argument (Linux takes
    // at most 128 KiB per argument); empty otherwise.
    QString instructionsFile;
    // A directory with the agent's skills in the layout its CLI reads (a Claude plugin whose
    // skills/ folder Codex also reads as a skills root); empty when it has none.
    QString skillsDir;
    // Changes whenever anything in skillsDir does.
    QString skillsFingerprint;
    QStringList allowedTools;
    QStringList disallowedTools;

    // Whether a running process must be restarted to take `other` (instructions alone may be
    // changed in place by a CLI that can).
    bool sameLaunch(const AgentShape &other) const {
        return skillsFingerprint == other.skillsFingerprint && allowedTools == other.allowedTools &&
               disallowedTools == other.disallowedTools;
    }
};

class AgentShaper {
public:
    virtual ~AgentShaper() = default;
    // Called on the event loop before an agent's process starts and before each turn.
    virtual AgentShape shapeFor(const Agent &agent) = 0;
};

} // namespace flotilla
