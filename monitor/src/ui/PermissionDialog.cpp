#include "ui/PermissionDialog.h"

#include "ui/RequestPreview.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace flotilla::monitor::ui {

PermissionDialog::PermissionDialog(const QJsonObject &request, QWidget *parent)
    : QDialog(parent)
    , m_id(request.value(QStringLiteral("id")).toString()) {
    setObjectName(QStringLiteral("permissionDialog"));
    setAttribute(Qt::WA_DeleteOnClose);
    const QString agent = request.value(QStringLiteral("agentName")).toString();
    const QString tool = request.value(QStringLiteral("tool")).toString();
    setWindowTitle(tr("Permission request from %1").arg(agent));

    auto *toolLabel = new QLabel(tool, this);
    toolLabel->setObjectName(QStringLiteral("permissionTool"));
    QFont bold = toolLabel->font();
    bold.setBold(true);
    toolLabel->setFont(bold);
    const qint64 ts = request.value(QStringLiteral("timestamp")).toInteger();
    auto *form = new QFormLayout;
    form->addRow(tr("Agent:"), new QLabel(agent, this));
    form->addRow(tr("Tool:"), toolLabel);
    if (ts > 0)
        form->addRow(tr("Asked at:"),
                     new QLabel(QDateTime::fromMSecsSinceEpoch(ts).toString(Qt::ISODate), this));

    const QJsonValue input = request.value(QStringLiteral("toolInput"));
    QString inputText;
    if (input.isObject())
        inputText =
            QString::fromUtf8(QJsonDocument(input.toObject()).toJson(QJsonDocument::Indented));
    else if (input.isArray())
        inputText =
            QString::fromUtf8(QJsonDocument(input.toArray()).toJson(QJsonDocument::Indented));
    else
        inputText = input.toVariant().toString();
    // What it will change (the diff, the command), then the raw input for the details.
    auto *preview = new QTextBrowser(this);
    preview->setObjectName(QStringLiteral("permissionPreview"));
    preview->setOpenLinks(false);
    preview->setHtml(requestPreviewHtml(tool, input.toObject()));
    auto *inputView = new QPlainTextEdit(inputText, this);
    inputView->setObjectName(QStringLiteral("permissionInput"));
    inputView->setReadOnly(true);
    inputView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    inputView->setMaximumHeight(120);

    auto *buttons = new QDialogButtonBox(this);
    QPushButton *grant = buttons->addButton(tr("&Grant"), QDialogButtonBox::AcceptRole);
    QPushButton *deny = buttons->addButton(tr("&Deny"), QDialogButtonBox::RejectRole);
    grant->setObjectName(QStringLiteral("grantButton"));
    deny->setObjectName(QStringLiteral("denyButton"));
    // Enter must never grant by accident: the default is Deny.
    deny->setDefault(true);
    connect(grant, &QPushButton::clicked, this, [this] {
        Q_EMIT answered(m_id, true);
        close();
    });
    connect(deny, &QPushButton::clicked, this, [this] {
        Q_EMIT answered(m_id, false);
        close();
    });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(preview, 1);
    layout->addWidget(new QLabel(tr("Input:"), this));
    layout->addWidget(inputView);
    layout->addWidget(new QLabel(tr("Close this window to decide later (the service denies "
                                    "after its deadline)."),
                                 this));
    layout->addWidget(buttons);
    resize(640, 480);
}

} // namespace flotilla::monitor::ui
