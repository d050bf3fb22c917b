#pragma once
// An agent's worktree diff (GET /api/agents/:id/diff) as the Changes tab shows it: the file list
// and the patch cut into lines that know their file and, for the lines that exist in the agent's
// worktree (added and context lines), their line number there: what a review comment names.
// Widgets-free, so it is unit-tested without a window.

#include "core/ToolPresentation.h"

#include <QJsonObject>
#include <QList>
#include <QString>

namespace flotilla::monitor {

struct DiffFile {
    QString path;
    QString oldPath; // renames only
    QString status;  // added | modified | deleted | renamed | copied | typechange
    int additions = 0;
    int deletions = 0;
    bool binary = false;
};

struct PatchLine {
    DiffLine::Kind kind = DiffLine::Kind::Context;
    QString text; // without the +/-/space marker
    QString path; // the file the line belongs to (its new path)
    int line = 0; // 1-based line in the agent's worktree; 0: none (headers, removed lines)
};

struct WorktreeDiff {
    QString baseCommit;
    QString branch;
    QString head;
    QList<DiffFile> files;
    QList<PatchLine> lines;
    bool truncated = false;

    static WorktreeDiff fromJson(const QJsonObject &json);
    // The patch lines of one file (all of them for an empty path).
    QList<PatchLine> linesOf(const QString &path) const;
    int additions() const;
    int deletions() const;
};

// A unified diff (git diff output, several files) as lines with files and line numbers.
QList<PatchLine> parsePatch(const QString &patch);

} // namespace flotilla::monitor
