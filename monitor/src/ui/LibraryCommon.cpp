#include "ui/LibraryCommon.h"

#include "protocol/WireNames.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>

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

} // namespace flotilla::monitor::ui
