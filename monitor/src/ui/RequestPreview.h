#pragma once
// A permission request as a person reads it before answering: for Write, Edit,
// MultiEdit, NotebookEdit and Codex's fileChange the change as a coloured diff (a new file: its
// content as added lines), for a command the command, for other tools the input pretty-printed.
// Rich text for a QTextBrowser; everything the agent wrote is escaped, nothing becomes a link.
// Shared by the inbox's preview and the dialog the user may open from it.

#include <QJsonObject>
#include <QString>

namespace flotilla::monitor::ui {

// `tool` and `input` of a permission_request.
QString requestPreviewHtml(const QString &tool, const QJsonObject &input);
// The same as plain text (the +/- markers, the command, the JSON): for tests and copying.
QString requestPreviewText(const QString &tool, const QJsonObject &input);

} // namespace flotilla::monitor::ui
