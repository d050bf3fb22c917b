#pragma once
// Small pieces the Library window's tabs and dialogs share: the red line that shows a refusal of
// the service with its code and what it names (the agents that use a class...), named buttons
// and their rows, the columns the editors are laid out in, and the form fields every editor
// fills the same way.

#include "client/ServiceClient.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <initializer_list>

class QBoxLayout;
class QComboBox;
class QHBoxLayout;
class QLabel;
class QLayout;
class QPushButton;
class QWidget;

namespace flotilla::monitor {
class AgentsModel;
}

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

// A push button of `parent` named `name` that calls `onClick`.
QPushButton *makeButton(QWidget *parent, const QString &text, const QString &name,
                        std::function<void()> onClick);
// The buttons side by side; a null entry is where the free room goes (else after the last).
QHBoxLayout *buttonRow(std::initializer_list<QPushButton *> buttons);

// One piece of a column: a widget or a layout, and the share of the free room it takes.
struct Piece {
    // Not explicit, so that a list of pieces reads {form, {text, 1}, error}.
    Piece(QWidget *w, int s = 0)
        : widget(w)
        , stretch(s) {}
    Piece(QLayout *l, int s = 0)
        : layout(l)
        , stretch(s) {}
    QWidget *widget = nullptr;
    QLayout *layout = nullptr;
    int stretch = 0;
};
// Adds `pieces` to `layout`, in order.
void addPieces(QBoxLayout *layout, std::initializer_list<Piece> pieces);
// A widget of `parent` with `pieces` top to bottom, without margins (a pane beside a list).
QWidget *column(QWidget *parent, std::initializer_list<Piece> pieces);

// Makes the entry whose data is `data` current, else the first.
void selectData(QComboBox *box, const QString &data);
// One entry per agent: its name, its id as the data.
void addAgentItems(QComboBox *box, const AgentsModel &agents);

// What `after` changes of `before`, key by key: the keys whose value differs. A key `before`
// lacks (or holds null) is unchanged when `after` holds null or an empty string, object or array.
QJsonObject changedFrom(const QJsonObject &before, const QJsonObject &after);

} // namespace flotilla::monitor::ui
