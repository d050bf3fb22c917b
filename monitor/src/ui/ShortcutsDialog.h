#pragma once
// Help > Keyboard shortcuts: every action of the window with its shortcut, built from the
// actions themselves so the list can never drift from what the keys do.

#include <QDialog>
#include <QList>

class QAction;

namespace flotilla::monitor::ui {

class ShortcutsDialog final : public QDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ShortcutsDialog)
public:
    ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);
};

} // namespace flotilla::monitor::ui
