#pragma once
// Codex's conversation history: its rollout files, read through the provider-neutral index,
// paging and search (history/SessionSource.h).
//   <codexHome>/sessions/YYYY/MM/DD/rollout-<local time>-<thread id>.jsonl
// One JSON object per line: {"timestamp", "type", "payload"}. The first line is session_meta
// (payload.cwd: the thread's working directory); the conversation is in the response_item lines,
// whose payloads are Responses API items (message, function_call, function_call_output, ...).
// event_msg lines repeat the same messages for UIs and are not read, so each entry appears once.

#include "history/LineScanner.h"
#include "history/SessionSource.h"

#include <QString>

namespace flotilla::codex {

// One rollout line -> entries, with the same spans and kinds as any session line
// (history/LineScanner.h):
//   message user/assistant -> its input_text/output_text (text) and input_image (image) parts,
//     without the context Codex injects as user messages (<environment_context> ...);
//   function_call / custom_tool_call / local_shell_call -> tool_use (id = call_id);
//   function_call_output / custom_tool_call_output -> tool_result.
// uuid is the item's own id when it has one. developer/system messages, reasoning and every
// non-response_item line yield nothing.
void scanRolloutLine(const char *b, const char *e, history::ScannedLine *out);

// The rollouts under `codexHome` whose session_meta cwd is `cwd` (as given or resolved).
// Touches the file system: call it on a worker.
history::SessionSourcePtr sessions(const QString &codexHome, const QString &cwd);

// "rollout-2026-11-25T07-56-44-<thread id>.jsonl" -> the thread id, or empty.
QString threadIdFromRolloutName(const QString &fileName);

} // namespace flotilla::codex
