#pragma once
// What `git diff` prints, read into what GET /api/agents/:id/diff answers. Pure functions: the
// tests feed them git's real output.

#include <QByteArray>
#include <QJsonArray>
#include <QList>
#include <QString>

namespace flotilla {

struct DiffFile {
    QString path;    // the path after the change
    QString oldPath; // renames and copies: the path before; else empty
    QString status;  // added, modified, deleted, renamed, copied, typechange (WorktreeNames.h)
    int additions = 0;
    int deletions = 0;
    bool binary = false; // git's numstat says "-": counted as 0/0, never put in the patch
};

// The output of `git diff --raw --numstat -z -M ...`: the raw records (status, paths) come first,
// then the numstat records (counts) in the same order.
QList<DiffFile> parseRawNumstat(const QByteArray &out);

QJsonArray diffFilesJson(const QList<DiffFile> &files);

// A patch of at most `maxBytes`, cut after its last whole line when longer. `cut` says whether
// anything was left out (also when git itself was ended at the limit: `gitWasCut`).
QString capPatch(const QByteArray &patch, qsizetype maxBytes, bool gitWasCut, bool *cut);

} // namespace flotilla
