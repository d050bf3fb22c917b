#include "worktrees/DiffParser.h"

#include "protocol/WorktreeNames.h"

#include <QHash>
#include <QJsonObject>

namespace flotilla {

namespace wk = wire::worktree::key;
namespace wf = wire::worktree::file;

namespace {

QString statusName(char letter) {
    switch (letter) {
    case 'A':
        return wf::Added;
    case 'D':
        return wf::Deleted;
    case 'R':
        return wf::Renamed;
    case 'C':
        return wf::Copied;
    case 'T':
        return wf::TypeChanged;
    default: // M, and U/X that a diff against a commit does not produce
        return wf::Modified;
    }
}

} // namespace

QList<DiffFile> parseRawNumstat(const QByteArray &out) {
    const QList<QByteArray> fields = out.split('\0');
    QList<DiffFile> files;
    qsizetype i = 0;
    // Raw records: ":<modes> <shas> <status>" then one path, or two for renames and copies.
    while (i < fields.size() && fields.at(i).startsWith(':')) {
        const QByteArray &head = fields.at(i);
        const qsizetype space = head.lastIndexOf(' ');
        const char letter = space >= 0 && space + 1 < head.size() ? head.at(space + 1) : 'M';
        DiffFile f;
        f.status = statusName(letter);
        const bool twoPaths = letter == 'R' || letter == 'C';
        if (twoPaths) {
            f.oldPath = QString::fromUtf8(fields.value(i + 1));
            f.path = QString::fromUtf8(fields.value(i + 2));
            i += 3;
        } else {
            f.path = QString::fromUtf8(fields.value(i + 1));
            i += 2;
        }
        files.append(f);
    }
    // Numstat records: "<add>\t<del>\t<path>", or "<add>\t<del>\t" then two paths for a rename.
    QHash<QString, qsizetype> byPath;
    for (qsizetype f = 0; f < files.size(); ++f)
        byPath.insert(files.at(f).path, f);
    while (i < fields.size()) {
        const QByteArray &rec = fields.at(i);
        const QList<QByteArray> parts = rec.split('\t');
        if (parts.size() < 3) {
            ++i; // the empty field after the last NUL
            continue;
        }
        QString path = QString::fromUtf8(parts.at(2));
        if (path.isEmpty()) {
            path = QString::fromUtf8(fields.value(i + 2));
            i += 3;
        } else {
            ++i;
        }
        const auto at = byPath.constFind(path);
        if (at == byPath.constEnd())
            continue;
        DiffFile &f = files[*at];
        f.binary = parts.at(0) == "-";
        f.additions = f.binary ? 0 : parts.at(0).toInt();
        f.deletions = f.binary ? 0 : parts.at(1).toInt();
    }
    return files;
}

QJsonArray diffFilesJson(const QList<DiffFile> &files) {
    QJsonArray out;
    for (const DiffFile &f : files) {
        QJsonObject o{{wk::Path, f.path},
                      {wire::key::Status, f.status},
                      {wk::Additions, f.additions},
                      {wk::Deletions, f.deletions},
                      {wk::Binary, f.binary}};
        if (!f.oldPath.isEmpty())
            o.insert(wk::OldPath, f.oldPath);
        out.append(o);
    }
    return out;
}

QString capPatch(const QByteArray &patch, qsizetype maxBytes, bool gitWasCut, bool *cut) {
    *cut = gitWasCut || patch.size() > maxBytes;
    if (!*cut)
        return QString::fromUtf8(patch);
    QByteArray kept = patch.left(maxBytes);
    const qsizetype lastLine = kept.lastIndexOf('\n');
    kept.truncate(lastLine < 0 ? 0 : lastLine + 1); // never half a line (or half a character)
    return QString::fromUtf8(kept);
}

} // namespace flotilla
