#pragma once
// Which tools run commands and which edit files, by name: what a permission rule's pattern means
// depends on it (RuleMatcher.h). Each provider declares the kinds of its own CLI's tools
// (Provider::toolKinds()); the ProviderRegistry answers for all of them, so the matcher holds no
// table of tool names.

#include <QString>

namespace flotilla::rules {

enum class ToolKind { Command, FileEdit, Other };

class ToolKinds {
public:
    virtual ~ToolKinds() = default;

    // Other for a tool no provider declares: such a tool is matched by name only.
    virtual ToolKind kindOf(const QString &tool) const = 0;
};

} // namespace flotilla::rules
