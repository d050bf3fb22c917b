#include "history/LineScanner.h"

namespace flotilla::history {

bool isMeaningfulText(Span escaped) {
    if (escaped.isNull())
        return false;
    static constexpr std::string_view kOpen = "<system-reminder>";
    static constexpr std::string_view kClose = "</system-reminder>";
    std::string_view s = escaped.view();
    for (;;) {
        // Whitespace, raw or as JSON escapes.
        while (!s.empty()) {
            if (s[0] == ' ' || s[0] == '\t')
                s.remove_prefix(1);
            else if (s.size() >= 2 && s[0] == '\\' && (s[1] == 'n' || s[1] == 'r' || s[1] == 't'))
                s.remove_prefix(2);
            else
                break;
        }
        if (s.empty())
            return false;
        if (s.substr(0, kOpen.size()) != kOpen)
            return true;
        const size_t close = s.find(kClose, kOpen.size());
        if (close == std::string_view::npos)
            return true; // an unterminated reminder is shown rather than silently dropped
        s.remove_prefix(close + kClose.size());
    }
}

} // namespace flotilla::history
