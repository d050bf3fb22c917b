#include "ui/TranscriptRenderer.h"

#include "core/ReplyMarkdown.h"
#include "core/SandboxText.h"
#include "core/ToolPresentation.h"
#include "ui/DiffStyle.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFontDatabase>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextDocumentFragment>

namespace flotilla::monitor::ui {

using Kind = TranscriptEntry::Kind;

namespace {

// Light tints with explicit text colours, so a dark desktop palette cannot make them unreadable.
const QColor kText(0x1f, 0x23, 0x28);
const QColor kMuted(0x6e, 0x77, 0x81);
const QColor kUserBg(0xe8, 0xf0, 0xfe);
const QColor kUserFg(0x0d, 0x47, 0xa1);
const QColor kToolBg(0xf3, 0xf4, 0xf6);
const QColor kToolFg(0x15, 0x65, 0xc0);
const QColor kDetailBg(0xfa, 0xfb, 0xfc);
const QColor kCodeBg(0xf6, 0xf8, 0xfa);
const QColor kErrorBg(0xff, 0xeb, 0xee);
const QColor kErrorFg(0xc6, 0x28, 0x28);
const QColor kStoppedBg(0xff, 0xf3, 0xe0);
const QColor kStoppedFg(0xe6, 0x51, 0x00);
constexpr qreal kSpacerHeight = 8;
constexpr qreal kDetailIndent = 18;

QString tr(const char *text) {
    return QCoreApplication::translate("TranscriptRenderer", text);
}

// Plain text into the current block: newlines become line breaks inside it, never markup.
void insertPlain(QTextCursor &cursor, const QString &text, const QTextCharFormat &format) {
    QString t = text;
    t.remove(QLatin1Char('\r'));
    t.replace(QLatin1Char('\n'), QChar::LineSeparator);
    cursor.insertText(t, format);
}

QTextCharFormat coloured(const QColor &c) {
    QTextCharFormat f;
    f.setForeground(c);
    return f;
}

// Tools whose summary (path, pattern) already says all their input holds worth reading.
bool inputIsSummarised(const QString &tool) {
    static const QStringList tools{QStringLiteral("Read"), QStringLiteral("Grep"),
                                   QStringLiteral("Glob"), QStringLiteral("LS")};
    return tools.contains(tool);
}

// Code blocks of a markdown import: monospace on a tinted block, wrapped like the rest, the
// fence's language on a line above. Two passes: labels are inserted last to first, so the
// block numbers collected in the first pass stay valid.
void styleCodeBlocks(QTextDocument &doc, const QFont &fixed) {
    QTextCharFormat code;
    code.setFontFamilies(fixed.families());
    code.setFontFixedPitch(true);
    code.setFontStyleHint(QFont::TypeWriter);
    code.setForeground(kText);
    QList<int> groupStarts;
    bool previousWasCode = false;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        QTextBlockFormat bf = b.blockFormat();
        const bool isCode = bf.hasProperty(QTextFormat::BlockCodeLanguage) ||
                            bf.hasProperty(QTextFormat::BlockCodeFence);
        if (!isCode) {
            if (previousWasCode) {
                QTextCursor(b.previous()).mergeBlockFormat([] {
                    QTextBlockFormat last;
                    last.setBottomMargin(6);
                    return last;
                }());
            }
            previousWasCode = false;
            continue;
        }
        if (!previousWasCode)
            groupStarts.append(b.blockNumber());
        previousWasCode = true;
        bf.setBackground(kCodeBg);
        bf.setNonBreakableLines(false); // wrapped: the view never scrolls sideways
        bf.setLeftMargin(6);
        bf.setRightMargin(6);
        QTextCursor c(b);
        c.setBlockFormat(bf);
        c.setBlockCharFormat(code);
        c.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        c.mergeCharFormat(code);
    }
    for (qsizetype i = groupStarts.size() - 1; i >= 0; --i) {
        const QTextBlock first = doc.findBlockByNumber(groupStarts[i]);
        const QString language =
            first.blockFormat().stringProperty(QTextFormat::BlockCodeLanguage).trimmed();
        if (language.isEmpty())
            continue;
        QTextBlockFormat label;
        label.setBackground(kCodeBg);
        label.setLeftMargin(6);
        label.setRightMargin(6);
        label.setTopMargin(4);
        QTextCharFormat labelText = code;
        labelText.setForeground(kMuted);
        labelText.setFontItalic(true);
        QTextCursor c(first);
        c.insertBlock(first.blockFormat(), code); // the code moves down a block
        c.movePosition(QTextCursor::PreviousBlock);
        c.setBlockFormat(label);
        c.setBlockCharFormat(labelText);
        c.insertText(language, labelText);
    }
}

} // namespace

QUrl toggleUrl(quint64 entryId) {
    QUrl url;
    url.setScheme(QLatin1String(kToggleScheme));
    url.setPath(QString::number(entryId));
    return url;
}

std::optional<quint64> toggledEntry(const QUrl &url) {
    if (url.scheme() != QLatin1String(kToggleScheme))
        return std::nullopt;
    bool ok = false;
    const quint64 id = url.path().toULongLong(&ok);
    return ok ? std::optional<quint64>(id) : std::nullopt;
}

TranscriptRenderer::TranscriptRenderer(const QFont &base)
    : m_base(base)
    , m_fixed(QFontDatabase::systemFont(QFontDatabase::FixedFont)) {
}

void TranscriptRenderer::render(QTextCursor &cursor, const TranscriptEntry &e) const {
    QTextBlockFormat spacer;
    spacer.setLineHeight(kSpacerHeight, QTextBlockFormat::FixedHeight);
    cursor.insertBlock(spacer, QTextCharFormat());
    switch (e.kind) {
    case Kind::User:
        renderUser(cursor, e);
        break;
    case Kind::Assistant:
        renderMarkdown(cursor, e.text);
        break;
    case Kind::Tool:
        renderTool(cursor, e);
        break;
    case Kind::Error:
    case Kind::Stopped:
    case Kind::Notice:
        renderMarked(cursor, e);
        break;
    }
}

void TranscriptRenderer::renderReplyHead(QTextCursor &cursor, const QString &stable) const {
    QTextBlockFormat spacer;
    spacer.setLineHeight(kSpacerHeight, QTextBlockFormat::FixedHeight);
    cursor.insertBlock(spacer, QTextCharFormat());
    if (!stable.isEmpty())
        renderMarkdown(cursor, stable);
}

void TranscriptRenderer::renderReplyTail(QTextCursor &cursor, const QString &tail) const {
    if (!tail.isEmpty())
        renderMarkdown(cursor, tail);
}

qsizetype TranscriptRenderer::stableSplit(const QString &markdown) {
    auto isFence = [](QStringView line) {
        const QStringView t = line.trimmed();
        return t.startsWith(QLatin1String("```")) || t.startsWith(QLatin1String("~~~"));
    };
    // A line that would join what is above it: an indented continuation, a list item (a loose
    // list split in two would renumber), a table row or a quote line.
    static const QRegularExpression joins(QStringLiteral("^(\\s|[-*+] |\\d{1,9}[.)] |\\||>)"));
    qsizetype cut = 0;
    bool inFence = false;
    bool previousBlank = false;
    qsizetype lineStart = 0;
    while (lineStart < markdown.size()) {
        qsizetype end = markdown.indexOf(QLatin1Char('\n'), lineStart);
        const bool complete = end >= 0;
        if (!complete)
            end = markdown.size();
        const QStringView line = QStringView(markdown).mid(lineStart, end - lineStart);
        const bool blank = line.trimmed().isEmpty();
        if (!inFence && previousBlank && !blank && !joins.match(line).hasMatch())
            cut = lineStart;
        if (isFence(line))
            inFence = !inFence;
        previousBlank = blank && !inFence;
        if (!complete)
            break;
        lineStart = end + 1;
    }
    return cut;
}

void TranscriptRenderer::renderUser(QTextCursor &cursor, const TranscriptEntry &e) const {
    QTextBlockFormat block;
    block.setBackground(kUserBg);
    block.setLeftMargin(2);
    QTextCharFormat who = coloured(kUserFg);
    who.setFontWeight(QFont::Bold);
    cursor.insertBlock(block, who);
    cursor.insertText(tr("You"), who);
    QTextCharFormat meta = coloured(kMuted);
    if (e.timestamp > 0)
        cursor.insertText(
            QStringLiteral("  ") +
                QDateTime::fromMSecsSinceEpoch(e.timestamp).toString(QStringLiteral("HH:mm")),
            meta);
    if (e.pending)
        cursor.insertText(QStringLiteral("  \u00b7 ") + tr("queued"), meta);
    block.setBottomMargin(2);
    const QTextCharFormat text = coloured(kText);
    cursor.insertBlock(block, text);
    insertPlain(cursor, e.truncated ? e.text + QStringLiteral("\u2026") : e.text, text);
}

void TranscriptRenderer::renderMarkdown(QTextCursor &cursor, const QString &markdown) const {
    // Raw HTML in a reply is shown as the text it is: an agent's output is never markup.
    QTextDocument doc;
    doc.setDefaultFont(m_base);
    doc.setMarkdown(replyAsMarkdown(markdown),
                    QTextDocument::MarkdownFeatures(QTextDocument::MarkdownDialectGitHub |
                                                    QTextDocument::MarkdownNoHTML));
    styleCodeBlocks(doc, m_fixed);
    // An empty first block merges into the spacer; the reply's own first block (a heading, a
    // list item) keeps its format instead of taking the spacer's.
    QTextCursor lead(&doc);
    lead.insertBlock();
    lead.movePosition(QTextCursor::PreviousBlock);
    lead.setBlockFormat(QTextBlockFormat());
    cursor.insertFragment(QTextDocumentFragment(&doc));
}

void TranscriptRenderer::renderTool(QTextCursor &cursor, const TranscriptEntry &e) const {
    QTextBlockFormat head;
    head.setBackground(kToolBg);
    head.setLeftMargin(2);
    QTextCharFormat link;
    link.setAnchor(true);
    link.setAnchorHref(toggleUrl(e.id).toString());
    link.setToolTip(e.expanded ? tr("Hide details") : tr("Show details"));
    link.setForeground(kMuted);
    cursor.insertBlock(head, link);
    cursor.insertText(e.expanded ? QStringLiteral("\u25be ") : QStringLiteral("\u25b8 "), link);
    QTextCharFormat name = link;
    name.setForeground(kToolFg);
    name.setFontWeight(QFont::Bold);
    cursor.insertText(toolTitle(e.toolName), name);
    const QString summary = e.hasInput ? toolSummary(e.toolName, e.toolInput) : QString();
    QTextCharFormat mono = link;
    mono.setFontFamilies(m_fixed.families());
    mono.setFontFixedPitch(true);
    if (!summary.isEmpty())
        cursor.insertText(QStringLiteral("  ") + summary, mono);
    if (isFileChangeTool(e.toolName)) {
        int added = 0;
        int removed = 0;
        for (const DiffLine &l : toolDiff(e.toolName, e.toolInput, e.toolOutput)) {
            added += l.kind == DiffLine::Kind::Added;
            removed += l.kind == DiffLine::Kind::Removed;
        }
        QTextCharFormat plus = link;
        plus.setForeground(diffStyle(DiffLine::Kind::Added).foreground);
        QTextCharFormat minus = link;
        minus.setForeground(diffStyle(DiffLine::Kind::Removed).foreground);
        cursor.insertText(QStringLiteral("  +%1").arg(added), plus);
        cursor.insertText(QStringLiteral(" \u2212%1").arg(removed), minus);
    }
    QTextCharFormat state = link;
    if (e.isError) {
        state.setForeground(kErrorFg);
        cursor.insertText(QStringLiteral("  \u2717 ") + tr("failed"), state);
    } else if (e.hasInput && !e.hasResult) {
        cursor.insertText(QStringLiteral("  \u2026"), state);
    }
    if (e.expanded)
        renderToolDetails(cursor, e);
}

void TranscriptRenderer::renderToolDetails(QTextCursor &cursor, const TranscriptEntry &e) const {
    const QString command = toolCommand(e.toolName, e.toolInput);
    if (!command.isEmpty())
        insertCodeLines(cursor, QStringLiteral("$ ") + command, kToolFg, kMaxOutputLines);
    const bool fileChange = isFileChangeTool(e.toolName);
    if (fileChange) {
        const QString header = toolSummary(e.toolName, e.toolInput);
        QTextCharFormat text;
        text.setFontFamilies(m_fixed.families());
        text.setFontFixedPitch(true);
        for (const DiffLine &l : toolDiff(e.toolName, e.toolInput, e.toolOutput)) {
            if (l.kind == DiffLine::Kind::File && l.text == header)
                continue; // the row's header names the file already
            const DiffStyle style = diffStyle(l.kind);
            QTextBlockFormat block;
            block.setLeftMargin(kDetailIndent);
            block.setBackground(style.background);
            text.setForeground(style.foreground);
            text.setFontWeight(style.bold ? QFont::Bold : QFont::Normal);
            cursor.insertBlock(block, text);
            cursor.insertText(QLatin1String(style.marker) + l.text, text);
        }
    } else if (command.isEmpty() && e.hasInput && !inputIsSummarised(e.toolName)) {
        insertCodeLines(
            cursor, QString::fromUtf8(QJsonDocument(e.toolInput).toJson(QJsonDocument::Indented)),
            kMuted, kMaxOutputLines);
    }
    if (!e.hasResult) {
        insertCodeLines(cursor, tr("(no result yet)"), kMuted, 1);
        return;
    }
    if (fileChange && !e.isError)
        return; // the diff above is what it did
    if (e.toolOutput.isEmpty())
        insertCodeLines(cursor, tr("(no output)"), kMuted, 1);
    else
        insertCodeLines(cursor, e.toolOutput, e.isError ? kErrorFg : kText, kMaxOutputLines);
    const QString hint = sandboxHint(m_sandboxed, e.toolOutput);
    if (!hint.isEmpty()) {
        QTextBlockFormat block;
        block.setBackground(kDetailBg);
        block.setLeftMargin(kDetailIndent);
        QTextCharFormat note = coloured(kMuted);
        note.setFontItalic(true);
        cursor.insertBlock(block, note);
        cursor.insertText(hint, note);
    }
}

void TranscriptRenderer::insertCodeLines(QTextCursor &cursor, const QString &text,
                                         const QColor &foreground, int maxLines) const {
    QStringList lines = text.split(QLatin1Char('\n'));
    if (lines.size() > 1 && lines.constLast().isEmpty())
        lines.removeLast();
    QTextBlockFormat block;
    block.setBackground(kDetailBg);
    block.setLeftMargin(kDetailIndent);
    QTextCharFormat format;
    format.setFontFamilies(m_fixed.families());
    format.setFontFixedPitch(true);
    format.setForeground(foreground);
    const qsizetype shown = std::min<qsizetype>(lines.size(), maxLines);
    for (qsizetype i = 0; i < shown; ++i) {
        cursor.insertBlock(block, format);
        QString line = lines[i];
        line.remove(QLatin1Char('\r'));
        cursor.insertText(line, format);
    }
    if (shown < lines.size()) {
        QTextCharFormat more = format;
        more.setForeground(kMuted);
        more.setFontItalic(true);
        cursor.insertBlock(block, more);
        cursor.insertText(tr("\u2026 %1 more lines").arg(lines.size() - shown), more);
    }
}

void TranscriptRenderer::renderMarked(QTextCursor &cursor, const TranscriptEntry &e) const {
    QTextBlockFormat block;
    block.setLeftMargin(2);
    QTextCharFormat text;
    QString mark;
    if (e.kind == Kind::Error) {
        block.setBackground(kErrorBg);
        text.setForeground(kErrorFg);
        mark = QStringLiteral("\u2716 ");
    } else if (e.kind == Kind::Stopped) {
        block.setBackground(kStoppedBg);
        text.setForeground(kStoppedFg);
        text.setFontWeight(QFont::Bold);
        mark = QStringLiteral("\u25a0 ");
    } else {
        text.setForeground(kMuted);
        text.setFontItalic(true);
    }
    cursor.insertBlock(block, text);
    insertPlain(cursor, mark + e.text, text);
}

} // namespace flotilla::monitor::ui
