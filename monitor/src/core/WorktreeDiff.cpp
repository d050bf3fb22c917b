#include "core/WorktreeDiff.h"

#include "protocol/WireNames.h"
#include "protocol/WorktreeNames.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace flotilla::monitor {

namespace wk = ::flotilla::wire::worktree::key;
namespace k = ::flotilla::wire::key;

namespace {

// git writes a path with unusual characters in C quotes ("a\tb"); the common escapes are undone,
// others are kept as written (the line still names the file well enough to read).
QString unquote(QString p) {
    if (p.size() < 2 || !p.startsWith(QLatin1Char('"')) || !p.endsWith(QLatin1Char('"')))
        return p;
    p = p.mid(1, p.size() - 2);
    p.replace(QLatin1String("\\\""), QLatin1String("\""));
    p.replace(QLatin1String("\\t"), QLatin1String("\t"));
    p.replace(QLatin1String("\\\\"), QLatin1String("\\"));
    return p;
}

// "+++ b/src/x.c" -> "src/x.c"; "/dev/null" -> empty.
QString sidePath(const QString &rest) {
    QString p = unquote(rest.trimmed());
    if (p == QLatin1String("/dev/null"))
        return {};
    if (p.startsWith(QLatin1String("a/")) || p.startsWith(QLatin1String("b/")))
        return p.mid(2);
    return p;
}

// "diff --git a/x b/x": the b side. Ambiguous only for paths holding " b/", which the
// ---/+++ or rename lines that follow then correct.
QString gitHeaderPath(const QString &line) {
    const QString rest = line.mid(QStringLiteral("diff --git ").size());
    const int at = rest.lastIndexOf(QLatin1String(" b/"));
    return at < 0 ? rest : unquote(rest.mid(at + 1)).mid(2);
}

} // namespace

QList<PatchLine> parsePatch(const QString &patch) {
    static const QRegularExpression hunk(
        QStringLiteral(R"(^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@)"));
    QList<PatchLine> out;
    QString path;
    int next = 0; // the worktree line the next added or context line has
    bool inHunk = false;
    const QStringList rows = patch.split(QLatin1Char('\n'));
    for (int i = 0; i < rows.size(); ++i) {
        const QString &row = rows.at(i);
        if (row.isEmpty() && i == rows.size() - 1)
            break; // the patch's final newline
        PatchLine l;
        if (row.startsWith(QLatin1String("diff --git "))) {
            path = gitHeaderPath(row);
            inHunk = false;
            l.kind = DiffLine::Kind::File;
            l.text = path;
        } else if (!inHunk && row.startsWith(QLatin1String("+++ "))) {
            const QString p = sidePath(row.mid(4));
            if (!p.isEmpty())
                path = p;
            continue; // the file line says it already
        } else if (!inHunk && (row.startsWith(QLatin1String("--- ")) ||
                               row.startsWith(QLatin1String("index ")))) {
            continue;
        } else if (!inHunk && row.startsWith(QLatin1String("rename to "))) {
            path = unquote(row.mid(10));
            l.kind = DiffLine::Kind::File;
            l.text = row;
        } else if (row.startsWith(QLatin1String("@@"))) {
            const QRegularExpressionMatch m = hunk.match(row);
            next = m.hasMatch() ? m.captured(1).toInt() : 0;
            inHunk = m.hasMatch();
            l.kind = DiffLine::Kind::Hunk;
            l.text = row;
        } else if (inHunk && row.startsWith(QLatin1Char('+'))) {
            l.kind = DiffLine::Kind::Added;
            l.text = row.mid(1);
            l.line = next++;
        } else if (inHunk && row.startsWith(QLatin1Char('-'))) {
            l.kind = DiffLine::Kind::Removed;
            l.text = row.mid(1);
        } else if (inHunk && row.startsWith(QLatin1Char(' '))) {
            l.kind = DiffLine::Kind::Context;
            l.text = row.mid(1);
            l.line = next++;
        } else if (inHunk && row.startsWith(QLatin1Char('\\'))) {
            l.kind = DiffLine::Kind::Context; // "\ No newline at end of file"
            l.text = row;
        } else {
            // Mode lines, "new file mode", "Binary files ... differ", "similarity index".
            l.kind = DiffLine::Kind::File;
            l.text = row;
            inHunk = false;
        }
        l.path = path;
        out.append(l);
    }
    return out;
}

WorktreeDiff WorktreeDiff::fromJson(const QJsonObject &json) {
    WorktreeDiff d;
    d.baseCommit = json.value(wk::BaseCommit).toString();
    d.branch = json.value(wk::Branch).toString();
    d.head = json.value(wk::Head).toString();
    d.truncated = json.value(wk::Truncated).toBool();
    for (const QJsonValue &v : json.value(wk::Files).toArray()) {
        const QJsonObject f = v.toObject();
        d.files.append({f.value(wk::Path).toString(), f.value(wk::OldPath).toString(),
                        f.value(k::Status).toString(), f.value(wk::Additions).toInt(),
                        f.value(wk::Deletions).toInt(), f.value(wk::Binary).toBool()});
    }
    d.lines = parsePatch(json.value(wk::Patch).toString());
    return d;
}

QList<PatchLine> WorktreeDiff::linesOf(const QString &path) const {
    if (path.isEmpty())
        return lines;
    QList<PatchLine> out;
    for (const PatchLine &l : lines)
        if (l.path == path)
            out.append(l);
    return out;
}

int WorktreeDiff::additions() const {
    int n = 0;
    for (const DiffFile &f : files)
        n += f.additions;
    return n;
}

int WorktreeDiff::deletions() const {
    int n = 0;
    for (const DiffFile &f : files)
        n += f.deletions;
    return n;
}

} // namespace flotilla::monitor
