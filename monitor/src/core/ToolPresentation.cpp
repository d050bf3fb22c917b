#include "core/ToolPresentation.h"

#include "core/McpTools.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>

#include <vector>

namespace flotilla::monitor {

using DK = DiffLine::Kind;

namespace {

constexpr int kSummaryLength = 160;
constexpr int kContextLines = 3;
// Past this many cells the quadratic line match is not worth it (a 1,000 x 1,000-line edit).
constexpr qint64 kMaxDiffCells = 1'000'000;

QString str(const QJsonObject &o, const char *key) {
    return o.value(QLatin1String(key)).toString();
}

QString shorten(QString s) {
    const qsizetype nl = s.indexOf(QLatin1Char('\n'));
    const bool cut = nl >= 0 || s.size() > kSummaryLength;
    if (nl >= 0)
        s.truncate(nl);
    s = s.left(kSummaryLength).trimmed();
    return cut ? s + QStringLiteral(" \u2026") : s;
}

QStringList splitLines(const QString &text) {
    if (text.isEmpty())
        return {};
    QStringList lines = text.split(QLatin1Char('\n'));
    if (lines.size() > 1 && lines.constLast().isEmpty())
        lines.removeLast(); // a final newline ends the last line; it is not one more
    return lines;
}

// Every line of `text` as `kind` (Write's content, an added or deleted file).
void appendAll(QList<DiffLine> *out, DK kind, const QString &text) {
    for (const QString &line : splitLines(text))
        out->append({kind, line});
}

// Longest-common-subsequence walk of the lines between the common prefix and suffix.
void diffMiddle(QList<DiffLine> *ops, const QStringList &a, const QStringList &b) {
    const qsizetype n = a.size();
    const qsizetype m = b.size();
    if (qint64(n) * qint64(m) > kMaxDiffCells) {
        for (const QString &l : a)
            ops->append({DK::Removed, l});
        for (const QString &l : b)
            ops->append({DK::Added, l});
        return;
    }
    // lcs[i][j]: common lines of a[i..] and b[j..], row-major in one vector.
    std::vector<int> lcs(size_t((n + 1) * (m + 1)), 0);
    const auto at = [m](qsizetype i, qsizetype j) { return size_t(i * (m + 1) + j); };
    for (qsizetype i = n - 1; i >= 0; --i)
        for (qsizetype j = m - 1; j >= 0; --j)
            lcs[at(i, j)] = a[i] == b[j] ? lcs[at(i + 1, j + 1)] + 1
                                         : std::max(lcs[at(i + 1, j)], lcs[at(i, j + 1)]);
    qsizetype i = 0;
    qsizetype j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && a[i] == b[j]) {
            ops->append({DK::Context, a[i]});
            ++i;
            ++j;
        } else if (j >= m || (i < n && lcs[at(i + 1, j)] >= lcs[at(i, j + 1)])) {
            ops->append({DK::Removed, a[i++]});
        } else {
            ops->append({DK::Added, b[j++]});
        }
    }
}

void cap(QList<DiffLine> *lines) {
    if (lines->size() <= kMaxDiffLines)
        return;
    const qsizetype more = lines->size() - kMaxDiffLines;
    lines->resize(kMaxDiffLines);
    lines->append({DK::Context, QStringLiteral("\u2026 %1 more lines").arg(more)});
}

QString filePath(const QJsonObject &input) {
    const QString path = str(input, "file_path");
    return path.isEmpty() ? str(input, "notebook_path") : path;
}

QList<DiffLine> fileChangeDiff(const QJsonObject &input, const QString &output) {
    QList<DiffLine> out;
    const QJsonArray changes = input.value(QLatin1String("changes")).toArray();
    QString onlyKind;
    for (const QJsonValue &c : changes) {
        const QJsonObject change = c.toObject();
        const QJsonValue kind = change.value(QLatin1String("kind"));
        onlyKind = kind.isObject() ? str(kind.toObject(), "type") : kind.toString();
        out.append(
            {DK::File, str(change, "path") + QStringLiteral(" (") + onlyKind + QLatin1Char(')')});
    }
    // Codex gives an added or deleted file's content as it is, an update as a unified diff.
    if (changes.size() == 1 && onlyKind == QLatin1String("add"))
        appendAll(&out, DK::Added, output);
    else if (changes.size() == 1 && onlyKind == QLatin1String("delete"))
        appendAll(&out, DK::Removed, output);
    else
        out.append(parseUnifiedDiff(output));
    return out;
}

} // namespace

QString toolCommand(const QString &toolName, const QJsonObject &input) {
    if (toolName != QLatin1String("Bash") && toolName != QLatin1String("commandExecution"))
        return {};
    const QJsonValue command = input.value(QLatin1String("command"));
    if (command.isArray()) {
        QStringList argv;
        for (const QJsonValue &v : command.toArray())
            argv << v.toString();
        return argv.join(QLatin1Char(' '));
    }
    return command.toString();
}

QString toolTitle(const QString &toolName) {
    if (toolName == QLatin1String("commandExecution"))
        return QCoreApplication::translate("ToolPresentation", "Command");
    if (toolName == QLatin1String("fileChange"))
        return QCoreApplication::translate("ToolPresentation", "File change");
    if (const std::optional<McpToolName> mcp = parseMcpToolName(toolName))
        return mcpToolTitle(*mcp);
    return toolName.isEmpty() ? QCoreApplication::translate("ToolPresentation", "Tool") : toolName;
}

QString toolSummary(const QString &toolName, const QJsonObject &input) {
    if (const std::optional<McpToolName> mcp = parseMcpToolName(toolName)) {
        const QString arguments = mcpToolSummary(*mcp, input);
        if (!arguments.isEmpty())
            return shorten(arguments);
    }
    const QString command = toolCommand(toolName, input);
    if (!command.isEmpty())
        return shorten(command);
    const QString path = filePath(input);
    if (!path.isEmpty())
        return shorten(path);
    if (toolName == QLatin1String("Grep") || toolName == QLatin1String("Glob")) {
        const QString where = str(input, "path");
        return shorten(str(input, "pattern") +
                       (where.isEmpty() ? QString() : QStringLiteral("  in ") + where));
    }
    if (toolName == QLatin1String("fileChange")) {
        QStringList paths;
        for (const QJsonValue &c : input.value(QLatin1String("changes")).toArray())
            paths << str(c.toObject(), "path");
        return shorten(paths.join(QStringLiteral(", ")));
    }
    for (const char *key : {"description", "url", "query", "prompt"}) {
        const QString v = str(input, key);
        if (!v.isEmpty())
            return shorten(v);
    }
    if (input.isEmpty())
        return {};
    return shorten(QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Compact)));
}

bool isFileChangeTool(const QString &toolName) {
    return toolName == QLatin1String("Edit") || toolName == QLatin1String("MultiEdit") ||
           toolName == QLatin1String("Write") || toolName == QLatin1String("NotebookEdit") ||
           toolName == QLatin1String("fileChange");
}

QList<DiffLine> toolDiff(const QString &toolName, const QJsonObject &input, const QString &output) {
    QList<DiffLine> out;
    if (toolName == QLatin1String("Edit")) {
        out.append({DK::File, filePath(input)});
        out.append(lineDiff(str(input, "old_string"), str(input, "new_string")));
    } else if (toolName == QLatin1String("MultiEdit")) {
        out.append({DK::File, filePath(input)});
        const QJsonArray edits = input.value(QLatin1String("edits")).toArray();
        for (qsizetype i = 0; i < edits.size(); ++i) {
            const QJsonObject edit = edits[i].toObject();
            out.append({DK::Hunk, QStringLiteral("@@ edit %1 of %2").arg(i + 1).arg(edits.size())});
            out.append(lineDiff(str(edit, "old_string"), str(edit, "new_string")));
        }
    } else if (toolName == QLatin1String("Write")) {
        out.append({DK::File, filePath(input)});
        appendAll(&out, DK::Added, str(input, "content"));
    } else if (toolName == QLatin1String("NotebookEdit")) {
        out.append({DK::File, filePath(input)});
        appendAll(&out, DK::Added, str(input, "new_source"));
    } else if (toolName == QLatin1String("fileChange")) {
        out = fileChangeDiff(input, output);
    }
    cap(&out);
    return out;
}

QList<DiffLine> lineDiff(const QString &before, const QString &after) {
    const QStringList a = splitLines(before);
    const QStringList b = splitLines(after);
    qsizetype pre = 0;
    while (pre < a.size() && pre < b.size() && a[pre] == b[pre])
        ++pre;
    qsizetype suf = 0;
    while (suf < a.size() - pre && suf < b.size() - pre &&
           a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
        ++suf;
    QList<DiffLine> ops;
    for (qsizetype i = 0; i < pre; ++i)
        ops.append({DK::Context, a[i]});
    diffMiddle(&ops, a.mid(pre, a.size() - pre - suf), b.mid(pre, b.size() - pre - suf));
    for (qsizetype i = a.size() - suf; i < a.size(); ++i)
        ops.append({DK::Context, a[i]});

    // Context only near changes; a run of skipped lines becomes one "@@".
    std::vector<bool> keep(size_t(ops.size()), false);
    for (qsizetype i = 0; i < ops.size(); ++i) {
        if (ops[i].kind == DK::Context)
            continue;
        for (qsizetype k = std::max<qsizetype>(0, i - kContextLines);
             k <= std::min(ops.size() - 1, i + kContextLines); ++k)
            keep[size_t(k)] = true;
    }
    QList<DiffLine> out;
    bool skipping = false;
    for (qsizetype i = 0; i < ops.size(); ++i) {
        if (keep[size_t(i)]) {
            out.append(ops[i]);
            skipping = false;
        } else if (!skipping) {
            out.append({DK::Hunk, QStringLiteral("@@")});
            skipping = true;
        }
    }
    if (!out.isEmpty() && out.constLast().kind == DK::Hunk)
        out.removeLast(); // nothing changed after it: no marker at the end
    return out;
}

QList<DiffLine> parseUnifiedDiff(const QString &diff) {
    QList<DiffLine> out;
    for (const QString &line : splitLines(diff)) {
        if (line.startsWith(QLatin1String("diff ")) || line.startsWith(QLatin1String("index ")) ||
            line.startsWith(QLatin1String("--- ")) || line.startsWith(QLatin1String("+++ ")) ||
            line.startsWith(QLatin1String("new file mode")) ||
            line.startsWith(QLatin1String("deleted file mode")))
            out.append({DK::File, line});
        else if (line.startsWith(QLatin1String("@@")))
            out.append({DK::Hunk, line});
        else if (line.startsWith(QLatin1Char('+')))
            out.append({DK::Added, line.mid(1)});
        else if (line.startsWith(QLatin1Char('-')))
            out.append({DK::Removed, line.mid(1)});
        else if (line.startsWith(QLatin1Char(' ')))
            out.append({DK::Context, line.mid(1)});
        else
            out.append({DK::Context, line});
    }
    return out;
}

} // namespace flotilla::monitor
