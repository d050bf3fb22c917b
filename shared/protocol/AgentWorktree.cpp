#include "protocol/AgentWorktree.h"

#include "protocol/WorktreeNames.h"

#include <QJsonObject>

namespace flotilla {

namespace wk = wire::worktree::key;

QJsonValue AgentWorktree::toJson() const {
    if (!isSet())
        return QJsonValue();
    return QJsonObject{{wk::Repo, repo},
                       {wk::Path, path},
                       {wk::Branch, branch},
                       {wk::BaseRef, baseRef},
                       {wk::BaseCommit, baseCommit}};
}

AgentWorktree AgentWorktree::fromJson(const QJsonValue &value) {
    const QJsonObject o = value.toObject();
    AgentWorktree w;
    w.path = o.value(wk::Path).toString();
    if (w.path.isEmpty())
        return {};
    w.repo = o.value(wk::Repo).toString();
    w.branch = o.value(wk::Branch).toString();
    w.baseRef = o.value(wk::BaseRef).toString();
    w.baseCommit = o.value(wk::BaseCommit).toString();
    return w;
}

} // namespace flotilla
