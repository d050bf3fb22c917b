#pragma once
// Small pieces the Library window's tabs share: the red line that shows a refusal of the
// service with its code and what it names (the agents that use a class...), and the form rows
// every editor has.

#include "client/ServiceClient.h"

#include <QString>
#include <functional>

class QLabel;
class QWidget;

namespace flotilla::monitor::ui {

// "Class in use (class_in_use): agents: reviewer-1, reviewer-2".
QString refusalText(const client::RestReply &r);
// A form label whose mnemonic focuses `buddy` (a row whose field is a layout has none).
QLabel *buddyLabel(const QString &text, QWidget *buddy);
// A hidden, word-wrapped, red label named `name`.
QLabel *makeErrorLabel(QWidget *parent, const QString &name);
// Shows the refusal of `r` in `label`, or hides it when `r` succeeded.
void showReply(QLabel *label, const client::RestReply &r);
void showError(QLabel *label, const QString &text); // empty: hidden
// Asks "Delete <what>?" in a window-modal box named "confirmDelete"; `then` runs on Delete.
void confirmDelete(QWidget *parent, const QString &what, std::function<void()> then);

} // namespace flotilla::monitor::ui
