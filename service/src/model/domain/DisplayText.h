#pragma once
// Names people give things (agents, areas, notification channels, classes) are shown in
// terminals, logs, the monitor and the page. They are text, never terminal commands: a name
// with an escape sequence could rewrite what a user reads in `journalctl` or a terminal client,
// and a NUL or a lone surrogate breaks the tools that store or print it. Refused with 422 at
// every door (REST, import, a boss's spawn block), because all of them parse through here.

#include "base/Error.h"

#include <QLatin1String>
#include <QString>

namespace flotilla {

// The first character that has no place in a name: C0 controls (NUL and TAB, LF, ESC among
// them), DEL, C1 controls (U+0080-U+009F, CSI among them), or a surrogate without its partner.
// -1 when there is none.
qsizetype firstForbiddenNameChar(const QString &text);

// 422 invalid_value naming the field and the character (as U+XXXX), or nothing.
Status validateNameText(QLatin1String field, const QString &text);

} // namespace flotilla
