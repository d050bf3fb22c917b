#pragma once
// How a diff line looks wherever the monitor shows one (a tool call's change in the conversation,
// an agent's worktree diff in the Changes tab): a tinted block, coloured text, the +/- marker.
// Light tints with explicit text colours, so a dark desktop palette cannot make them unreadable.

#include "core/ToolPresentation.h"

#include <QColor>

namespace flotilla::monitor::ui {

struct DiffStyle {
    QColor background;
    QColor foreground;
    const char *marker;
    bool bold;
};

inline DiffStyle diffStyle(DiffLine::Kind kind) {
    const QColor text(0x1f, 0x23, 0x28);
    const QColor detailBg(0xfa, 0xfb, 0xfc);
    switch (kind) {
    case DiffLine::Kind::File:
        return {detailBg, text, "", true};
    case DiffLine::Kind::Hunk:
        return {QColor(0xdd, 0xf4, 0xff), QColor(0x09, 0x69, 0xda), "", false};
    case DiffLine::Kind::Added:
        return {QColor(0xe6, 0xff, 0xec), QColor(0x1a, 0x7f, 0x37), "+ ", false};
    case DiffLine::Kind::Removed:
        return {QColor(0xff, 0xeb, 0xe9), QColor(0xcf, 0x22, 0x2e), "- ", false};
    case DiffLine::Kind::Context:
        break;
    }
    return {detailBg, text, "  ", false};
}

} // namespace flotilla::monitor::ui
