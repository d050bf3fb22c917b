#include "ui/RequestPreview.h"

#include "core/ToolPresentation.h"
#include "ui/DiffStyle.h"

#include <QJsonDocument>

namespace flotilla::monitor::ui {

namespace {

QString pretty(const QJsonObject &input) {
    return QString::fromUtf8(QJsonDocument(input).toJson(QJsonDocument::Indented)).trimmed();
}

QString block(const QString &text) {
    return QStringLiteral("<pre style=\"white-space: pre-wrap; margin: 0\">%1</pre>")
        .arg(text.toHtmlEscaped());
}

} // namespace

QString requestPreviewText(const QString &tool, const QJsonObject &input) {
    if (isFileChangeTool(tool)) {
        QStringList lines;
        for (const DiffLine &l : toolDiff(tool, input, QString()))
            lines << QLatin1String(diffStyle(l.kind).marker) + l.text;
        if (!lines.isEmpty())
            return lines.join(QLatin1Char('\n'));
    }
    QString command = toolCommand(tool, input);
    if (!command.isEmpty())
        return command;
    return pretty(input);
}

QString requestPreviewHtml(const QString &tool, const QJsonObject &input) {
    if (isFileChangeTool(tool)) {
        const QList<DiffLine> diff = toolDiff(tool, input, QString());
        if (!diff.isEmpty()) {
            // One table row per line: the tint spans the whole width, as in the conversation.
            QString html =
                QStringLiteral("<table width=\"100%\" cellspacing=\"0\" cellpadding=\"1\" "
                               "style=\"font-family: monospace\">");
            for (const DiffLine &l : diff) {
                const DiffStyle s = diffStyle(l.kind);
                html += QStringLiteral("<tr><td style=\"background-color: %1; color: %2;%3 "
                                       "white-space: pre-wrap\">%4</td></tr>")
                            .arg(s.background.name(), s.foreground.name(),
                                 s.bold ? QStringLiteral(" font-weight: 600;") : QString(),
                                 QString(QLatin1String(s.marker) + l.text).toHtmlEscaped());
            }
            return html + QStringLiteral("</table>");
        }
    }
    const QString command = toolCommand(tool, input);
    if (!command.isEmpty())
        return QStringLiteral("<p style=\"margin: 0 0 4px 0\">Command:</p>") +
               block(QStringLiteral("$ ") + command);
    return block(pretty(input));
}

} // namespace flotilla::monitor::ui
