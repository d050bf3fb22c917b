#pragma once
// Standing permission rules, the pure part: what a rule is, how it is read from JSON, whether it
// covers a tool use, and the rule a "remember" answer creates. No storage, no Qt objects: every
// matching row of docs/api.md is a row of tst_permission_rules.
//
// Tools come in kinds (ToolKinds.h: each provider names its own tools' kinds), so one rule
// serves Claude and Codex agents alike:
//  - commands: Claude's `Bash`, Codex's `commandExecution`. The pattern is a command-word prefix
//    ("npm test" covers "npm test -- -w", not "npm testx"). An allow rule never covers a command
//    with shell control (; & | ` $( < > newline): what follows it would run unasked. A Codex
//    command arrives wrapped ("/bin/bash -lc '<script>'"); the script is what is matched.
//  - file edits: Claude's `Edit`, `Write`, `MultiEdit`, `NotebookEdit`, Codex's `fileChange`.
//    The pattern is a path prefix; paths are made absolute (against the agent's working
//    directory), symlinks resolved. An allow rule covers only paths inside the agent's working
//    directory, unless its own pattern names a place outside it. Every path of the use must be
//    covered.
//  - any other tool: by name (the pattern is empty).
// Deny wins: a use covered by a deny rule is denied whatever allow rules say.

#include "agents/ToolKinds.h"
#include "base/Error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace flotilla {

struct PermissionRule {
    QString id;
    QString tool;         // as given: "Bash", "Write", "commandExecution", "WebFetch"...
    QString pattern;      // command-word prefix, path prefix, or empty
    QString scopeAgentId; // scope {agentId}
    QString scopeCwd;     // scope {cwd}; both empty: {} (everywhere)
    bool allow = false;   // decision "allow" or "deny"
    qint64 createdAt = 0;
    QString source; // "api", "remember", "import"

    QJsonObject toJson() const;
    // Lenient decoder for stored rows; false when id, tool or decision is missing.
    static bool fromJson(const QJsonObject &json, PermissionRule *out);
};

// Validates a POST /api/permission-rules body (and each rule of an imported config): tool,
// decision required; pattern, scope optional; anything else -> 422 naming it. The id, createdAt
// and source are the caller's to set. `kinds` tells which tools take a pattern.
Result<PermissionRule> parseRuleDraft(const QJsonObject &body, const rules::ToolKinds &kinds);

// The agent a tool use belongs to, as rules see it.
struct RuleSubject {
    QString agentId;
    QString cwd;
};

struct RuleVerdict {
    enum class Kind { None, Allow, Deny };
    Kind kind = Kind::None;
    QString ruleId;
};

namespace rules {

// Shell words of `text` (quotes and backslashes as POSIX sh reads them); nullopt when a quote is
// not closed.
std::optional<QStringList> shellWords(const QString &text);
// The script a Codex command runs ("/bin/bash -lc '<script>'" -> <script>), else `command`.
QString unwrapShell(const QString &command);
// True when the command has shell control that could run something else after or around it.
bool hasShellControl(const QString &command);

// `kinds`: which tools are commands and file edits (the rule's tool and the used one must be of
// the same kind).
bool covers(const PermissionRule &rule, const RuleSubject &subject, const QString &tool,
            const QJsonObject &toolInput, const ToolKinds &kinds);
// Deny wins over allow; the first rule of the deciding kind is named.
RuleVerdict evaluate(const QList<PermissionRule> &list, const RuleSubject &subject,
                     const QString &tool, const QJsonObject &toolInput, const ToolKinds &kinds);

// The rule a `remember` answer creates: `scope` is "agent", "project" (the agent's working
// directory) or "global"; `pattern` overrides the derived one (the whole command; the directory
// holding the edited files; empty for other tools). Refused (422) when the rule could never
// cover the request (an allow rule for a command with shell control, or a bad scope).
Result<PermissionRule> rememberedRule(const QString &scope, bool allow, const RuleSubject &subject,
                                      const QString &tool, const QJsonObject &toolInput,
                                      const std::optional<QString> &pattern,
                                      const ToolKinds &kinds);

} // namespace rules

} // namespace flotilla
