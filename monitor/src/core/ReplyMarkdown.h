#pragma once
// A reply as markdown for the conversation view. Agents write for a terminal: a single newline
// is a line break there, and a table may follow a line of text directly. Markdown reads both
// differently (a space; one paragraph), so the reply is adjusted before it is rendered.

#include <QString>

namespace flotilla::monitor {

// Single newlines inside paragraphs become hard breaks (two trailing spaces); a table gets the
// blank line before it that markdown needs. Fenced code is left as it is.
QString replyAsMarkdown(const QString &reply);

} // namespace flotilla::monitor
