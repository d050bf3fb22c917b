#include "ui/LibraryCommon.h"

#include "core/AgentsModel.h"
#include "protocol/WireNames.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;

QString refusalText(const client::RestReply &r) {
    if (r.ok())
        return {};
    QString text = r.error.isEmpty() ? QStringLiteral("HTTP %1").arg(r.status) : r.error;
    if (!r.code.isEmpty())
        text += QStringLiteral(" (%1)").arg(r.code);
    // An in-use refusal names what uses the item: {agents: [names], classes: [slugs]}.
    const QJsonObject body = r.body.object();
    QStringList users;
    for (auto it = body.begin(); it != body.end(); ++it) {
        if (!it.value().isArray() || it.key() == k::Warnings)
            continue;
        QStringList names;
        for (const QJsonValue &v : it.value().toArray())
            names << (v.isString() ? v.toString() : v.toObject().value(k::Name_).toString());
        names.removeAll(QString());
        if (!names.isEmpty())
            users << it.key() + QStringLiteral(": ") + names.join(QStringLiteral(", "));
    }
    if (!users.isEmpty())
        text += QStringLiteral(": ") + users.join(QStringLiteral("; "));
    return text;
}

QLabel *buddyLabel(const QString &text, QWidget *buddy) {
    auto *label = new QLabel(text, buddy->parentWidget());
    label->setBuddy(buddy);
    return label;
}

QLabel *makeErrorLabel(QWidget *parent, const QString &name) {
    auto *label = new QLabel(parent);
    label->setObjectName(name);
    label->setStyleSheet(QStringLiteral("color: #b00020;"));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    label->hide();
    return label;
}

void showError(QLabel *label, const QString &text) {
    label->setText(text);
    label->setVisible(!text.isEmpty());
}

void showReply(QLabel *label, const client::RestReply &r) {
    showError(label, refusalText(r));
}

void confirmDelete(QWidget *parent, const QString &what, std::function<void()> then) {
    auto *box = new QMessageBox(QMessageBox::Warning, QObject::tr("Delete"),
                                QObject::tr("Delete %1?").arg(what), QMessageBox::Cancel, parent);
    box->setObjectName(QStringLiteral("confirmDelete"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    QPushButton *yes = box->addButton(QObject::tr("&Delete"), QMessageBox::DestructiveRole);
    yes->setObjectName(QStringLiteral("confirmDeleteButton"));
    box->setDefaultButton(QMessageBox::Cancel);
    QObject::connect(box, &QMessageBox::buttonClicked, parent,
                     [yes, then = std::move(then)](QAbstractButton *b) {
                         if (b == yes)
                             then();
                     });
    box->open();
}

QPushButton *makeButton(QWidget *parent, const QString &text, const QString &name,
                        std::function<void()> onClick) {
    auto *button = new QPushButton(text, parent);
    button->setObjectName(name);
    QObject::connect(button, &QPushButton::clicked, parent,
                     [onClick = std::move(onClick)] { onClick(); });
    return button;
}

QHBoxLayout *buttonRow(std::initializer_list<QPushButton *> buttons) {
    auto *row = new QHBoxLayout;
    const bool roomBetween = std::find(buttons.begin(), buttons.end(), nullptr) != buttons.end();
    for (QPushButton *b : buttons) {
        if (b)
            row->addWidget(b);
        else
            row->addStretch(1);
    }
    if (!roomBetween)
        row->addStretch(1);
    return row;
}

void addPieces(QBoxLayout *layout, std::initializer_list<Piece> pieces) {
    for (const Piece &p : pieces) {
        if (p.widget)
            layout->addWidget(p.widget, p.stretch);
        else if (p.layout)
            layout->addLayout(p.layout, p.stretch);
    }
}

QWidget *column(QWidget *parent, std::initializer_list<Piece> pieces) {
    auto *pane = new QWidget(parent);
    auto *layout = new QVBoxLayout(pane);
    layout->setContentsMargins(0, 0, 0, 0);
    addPieces(layout, pieces);
    return pane;
}

void selectData(QComboBox *box, const QString &data) {
    box->setCurrentIndex(std::max(0, box->findData(data)));
}

void addAgentItems(QComboBox *box, const AgentsModel &agents) {
    for (const QString &id : agents.agentIds())
        box->addItem(agents.agent(id).value(k::Name_).toString(), id);
}

QJsonObject changedFrom(const QJsonObject &before, const QJsonObject &after) {
    auto isEmpty = [](const QJsonValue &v) {
        return v.isNull() || v.isUndefined() || (v.isString() && v.toString().isEmpty()) ||
               (v.isObject() && v.toObject().isEmpty()) || (v.isArray() && v.toArray().isEmpty());
    };
    QJsonObject out;
    for (auto it = after.begin(); it != after.end(); ++it) {
        const QJsonValue was = before.value(it.key());
        const bool unset = was.isUndefined() || was.isNull();
        if (unset ? !isEmpty(it.value()) : was != it.value())
            out.insert(it.key(), it.value());
    }
    return out;
}

} // namespace flotilla::monitor::ui
