#pragma once
// Validation of agent request bodies at the edge: each parser names the bad field. Which
// providers exist, and their default models, come from the ProviderCatalog the caller passes.

#include "base/Error.h"
#include "domain/ProviderCatalog.h"
#include "protocol/AgentSandbox.h"
#include "protocol/Usage.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace flotilla {

// `worktree: true` or `{baseRef?, branch?}` on create: the agent gets a git worktree of its own
// (worktrees/WorktreeService). Empty strings mean the defaults.
struct WorktreeRequest {
    QString baseRef; // default: the branch checked out at cwd (its commit when detached)
    QString branch;  // default: flotilla/<agent name>
};

struct AgentDraft {
    QString name;
    QString agentClass;
    QString cwd; // canonical absolute path of an existing directory
    QString provider;
    QString model;
    QString permissionMode;      // "ask" (default) or "auto"
    int idleTimeoutSeconds = -1; // -1: the service's --idle-timeout
    Budget budget;               // unset: none
    std::optional<WorktreeRequest> worktree;
    QString customInstructions; // "" = none
    QStringList skills;         // slugs, well-formed and unique; that they exist is the caller's
    // Absent: the service's default; an unset AgentSandbox: null, the same (SandboxValidation.h).
    std::optional<AgentSandbox> sandbox;
    // The host's name (docs/api.md "Hosts"); empty: local. On a remote host `cwd` is only an
    // absolute, clean path: the directory is that machine's, checked when the CLI starts there.
    QString host;
};

struct AgentPatch {
    std::optional<QString> taskLabel;
    std::optional<QString> trackingStatus; // empty string = clear (JSON null)
    std::optional<QString> trackingStatusDetail;
    std::optional<int> idleTimeoutSeconds; // -1: null (the service's --idle-timeout)
    std::optional<Budget> budget;          // an unset Budget: null (none)
    std::optional<QString> customInstructions;
    std::optional<QStringList> skills;
    std::optional<AgentSandbox> sandbox; // unset: null (the service's default)
};

namespace limits {
inline constexpr int kNameMax = 100;
inline constexpr int kTaskLabelMax = 200;
inline constexpr int kDetailMax = 2000;
inline constexpr int kRefMax = 200; // worktree.baseRef and worktree.branch
// Instructions are markdown the model reads on every request: 64 KiB is pages of text, and the
// composed prompt must still fit the CLIs' command lines and the model's context.
inline constexpr int kInstructionsMaxBytes = 64 * 1024;
inline constexpr int kSkillsMax = 64; // per agent or class
} // namespace limits

// `provider` defaults to providers.defaultProvider(), `model` to that provider's default model
// (docs/api.md); both are checked against `providers`.
Result<AgentDraft> parseAgentDraft(const QJsonObject &body, const ProviderCatalog &providers);
Result<AgentPatch> parseAgentPatch(const QJsonObject &body);

// `key` (customInstructions, instructions) absent -> nullopt; a string of at most
// kInstructionsMaxBytes UTF-8 bytes (null -> ""); else 400/422.
Result<std::optional<QString>> parseInstructions(const QJsonObject &body, QLatin1String key);
// `key` (skills) absent -> nullopt; an array of unique slugs ([a-z][a-z0-9-]{0,39}), at most
// kSkillsMax; else 400/422.
Result<std::optional<QStringList>> parseSlugList(const QJsonObject &body, QLatin1String key);
// The slug of classes and skills, and an agent's `class`.
bool isSlug(const QString &text);

// provider must be one of `providers` and model well-formed (used by create and
// bulk/change-model).
Status validateProviderModel(const QString &provider, const QString &model,
                             const ProviderCatalog &providers);

} // namespace flotilla
