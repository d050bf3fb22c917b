#include "core/ReplyMarkdown.h"

#include <QRegularExpression>
#include <QStringList>

namespace flotilla::monitor {

namespace {

bool isFence(const QString &line) {
    const QString t = line.trimmed();
    return t.startsWith(QLatin1String("```")) || t.startsWith(QLatin1String("~~~"));
}

} // namespace

// Agents write for a terminal. There a newline is a line break: inside a paragraph a single
// newline becomes a hard break (two trailing spaces) instead of markdown's soft one (a space).
// And a table may follow a line of text directly, which markdown would read as one paragraph:
// it gets the blank line it needs. Fenced code is left as it is.
QString replyAsMarkdown(const QString &reply) {
    static const QRegularExpression delimiterRow(
        QStringLiteral(R"(^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$)"));
    const QStringList in = reply.split(QLatin1Char('\n'));
    QStringList lines;
    bool inFence = false;
    for (qsizetype i = 0; i < in.size(); ++i) {
        inFence = isFence(in[i]) ? !inFence : inFence;
        const bool tableStarts =
            !inFence && i > 0 && i + 1 < in.size() && in[i].contains(QLatin1Char('|')) &&
            !in[i - 1].trimmed().isEmpty() && !in[i - 1].contains(QLatin1Char('|')) &&
            delimiterRow.match(in[i + 1]).hasMatch();
        if (tableStarts)
            lines << QString();
        lines << in[i];
    }
    inFence = false;
    for (qsizetype i = 0; i + 1 < lines.size(); ++i) {
        if (isFence(lines[i])) {
            inFence = !inFence;
            continue;
        }
        if (inFence || lines[i].trimmed().isEmpty() || lines[i + 1].trimmed().isEmpty() ||
            lines[i].endsWith(QLatin1String("  ")) || lines[i].endsWith(QLatin1Char('\\')))
            continue;
        lines[i] += QStringLiteral("  ");
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace flotilla::monitor
