#include "ui/ClassDialog.h"

#include "core/ShapingCatalog.h"
#include "protocol/PermissionNames.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/ClassBadge.h"
#include "ui/LibraryCommon.h"

#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QJsonArray>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace provider = ::flotilla::wire::provider;
namespace mode = ::flotilla::wire::permission::mode;

namespace {
// What the file holds, by its bytes (never by its name): the service checks the same way.
QString sniffIconType(const QByteArray &data) {
    if (data.startsWith(QByteArrayLiteral("\x89PNG\r\n\x1a\n")))
        return QStringLiteral("image/png");
    const QByteArray head = data.left(1024).trimmed();
    if ((head.startsWith('<') || head.startsWith("\xef\xbb\xbf")) && head.contains("<svg"))
        return QStringLiteral("image/svg+xml");
    return {};
}
} // namespace

ClassDialog::ClassDialog(ShapingCatalog &catalog, const QJsonObject &existing, QWidget *parent)
    : LibraryDialog(existing, QStringLiteral("classError"), parent)
    , m_catalog(catalog)
    , m_slug(new QLineEdit(this))
    , m_name(new QLineEdit(this))
    , m_description(new QLineEdit(this))
    , m_instructions(new QPlainTextEdit(this))
    , m_provider(new QComboBox(this))
    , m_model(new QComboBox(this))
    , m_permission(new QComboBox(this))
    , m_skills(new QListWidget(this))
    , m_iconPreview(new QLabel(this))
    , m_removeIcon(makeButton(this, tr("&No icon"), QStringLiteral("classRemoveIcon"), [this] {
        m_iconChange = isNew() ? IconChange::Keep : IconChange::Remove;
        m_iconData.clear();
        m_iconType.clear();
        showIconPreview();
    })) {
    setObjectName(QStringLiteral("classDialog"));
    setWindowTitle(isNew() ? tr("New class")
                           : tr("Class %1").arg(existing.value(sk::Slug).toString()));
    m_slug->setObjectName(QStringLiteral("classSlug"));
    m_slug->setPlaceholderText(tr("reviewer (a-z, 0-9, -)"));
    m_slug->setMaxLength(40);
    m_name->setObjectName(QStringLiteral("className"));
    m_description->setObjectName(QStringLiteral("classDescription"));
    m_instructions->setObjectName(QStringLiteral("classInstructions"));
    m_instructions->setPlaceholderText(
        tr("Standing instructions for every agent of this class (markdown)"));
    m_provider->setObjectName(QStringLiteral("classProvider"));
    m_provider->addItem(tr("(any)"), QString());
    m_provider->addItem(tr("Claude Code"), QString(provider::Claude));
    m_provider->addItem(tr("Codex"), QString(provider::Codex));
    m_model->setObjectName(QStringLiteral("classModel"));
    m_model->setEditable(true);
    m_model->addItems({QString(), QStringLiteral("sonnet"), QStringLiteral("opus"),
                       QStringLiteral("haiku"), QStringLiteral("gpt-5.5")});
    m_permission->setObjectName(QStringLiteral("classPermission"));
    m_permission->addItem(tr("(the agent's)"), QString());
    m_permission->addItem(tr("Ask before using tools"), QString(mode::Ask));
    m_permission->addItem(tr("Allow every tool (auto)"), QString(mode::Auto));
    m_skills->setObjectName(QStringLiteral("classSkills"));
    m_skills->setMaximumHeight(110);
    m_iconPreview->setObjectName(QStringLiteral("classIconPreview"));
    m_iconPreview->setFixedSize(40, 40);

    if (!isNew()) {
        m_slug->setText(existing.value(sk::Slug).toString());
        m_slug->setReadOnly(true);
        m_name->setText(existing.value(k::Name_).toString());
        m_description->setText(existing.value(sk::Description).toString());
        m_instructions->setPlainText(existing.value(sk::Instructions).toString());
        const QJsonObject d = existing.value(sk::Defaults).toObject();
        selectData(m_provider, d.value(k::Provider).toString());
        m_model->setCurrentText(d.value(k::Model).toString());
        selectData(m_permission, d.value(sk::PermissionMode).toString());
    }
    m_catalog.ensureLoaded(ShapingKind::Skills);
    fillSkills();
    ShapingListModel &skills = m_catalog.skills();
    connect(&skills, &QAbstractItemModel::modelReset, this, &ClassDialog::fillSkills);
    connect(&skills, &QAbstractItemModel::rowsInserted, this, &ClassDialog::fillSkills);
    connect(&skills, &QAbstractItemModel::rowsRemoved, this, &ClassDialog::fillSkills);

    auto *chooseIcon =
        makeButton(this, tr("Choose &icon..."), QStringLiteral("classChooseIcon"), [this] {
            const QString path = QFileDialog::getOpenFileName(
                this, tr("Class icon"), {}, tr("Icons (*.png *.svg);;All files (*)"));
            if (!path.isEmpty())
                setIconFile(path);
        });
    connect(&m_catalog, &ShapingCatalog::classChanged, this, [this](const QString &slug) {
        if (m_iconChange == IconChange::Keep && (slug.isEmpty() || slug == m_slug->text()))
            showIconPreview();
    });
    showIconPreview();

    auto *iconRow = new QHBoxLayout;
    addPieces(iconRow, {m_iconPreview, chooseIcon, m_removeIcon});
    iconRow->addStretch(1);
    auto *form = new QFormLayout;
    form->addRow(tr("&Slug:"), m_slug);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Description:"), m_description);
    form->addRow(tr("Ins&tructions:"), m_instructions);
    form->addRow(tr("&Provider:"), m_provider);
    form->addRow(tr("&Model:"), m_model);
    form->addRow(tr("Pe&rmissions:"), m_permission);
    form->addRow(tr("S&kills:"), m_skills);
    form->addRow(tr("Icon:"), iconRow);
    layOut(form, QStringLiteral("classSave"));
    resize(560, 620);
}

void ClassDialog::fillSkills() {
    QStringList checked = checkedSkills();
    if (m_skills->count() == 0 && !isNew())
        checked << existing().value(sk::Skills).toVariant().toStringList();
    m_skills->clear();
    const ShapingListModel &skills = m_catalog.skills();
    for (int row = 0; row < skills.rowCount(); ++row) {
        const QJsonObject s = skills.item(row);
        const QString slug = s.value(sk::Slug).toString();
        auto *item = new QListWidgetItem(slug, m_skills);
        item->setData(Qt::UserRole, slug);
        item->setToolTip(s.value(sk::Description).toString());
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(checked.contains(slug) ? Qt::Checked : Qt::Unchecked);
    }
}

QStringList ClassDialog::checkedSkills() const {
    QStringList out;
    for (int i = 0; i < m_skills->count(); ++i) {
        if (m_skills->item(i)->checkState() == Qt::Checked)
            out << m_skills->item(i)->data(Qt::UserRole).toString();
    }
    return out;
}

bool ClassDialog::setIconFile(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        showError(errorLabel(), tr("Cannot read %1: %2").arg(path, file.errorString()));
        return false;
    }
    const QByteArray bytes = file.read(ClassIcons::kMaxBytes + 1);
    if (bytes.size() > ClassIcons::kMaxBytes) {
        showError(errorLabel(), tr("The icon is larger than 64 KiB."));
        return false;
    }
    const QString type = sniffIconType(bytes);
    if (type.isEmpty()) {
        showError(errorLabel(), tr("%1 is neither a PNG nor an SVG file.").arg(path));
        return false;
    }
    m_iconData = bytes;
    m_iconType = type;
    m_iconChange = IconChange::Set;
    showError(errorLabel(), {});
    showIconPreview();
    return true;
}

void ClassDialog::showIconPreview() {
    const QString slug = m_slug->text().trimmed();
    if (m_iconChange == IconChange::Set) {
        m_iconPreview->setPixmap(classPixmap(slug, {m_iconData, m_iconType}, 40));
        m_iconPreview->setToolTip(m_iconType == QLatin1String("image/svg+xml")
                                      ? tr("SVG icon (shown as a letter here)")
                                      : tr("PNG icon"));
    } else if (m_iconChange == IconChange::Remove || isNew()) {
        m_iconPreview->setPixmap(letterBadge(slug, 40));
        m_iconPreview->setToolTip(tr("No icon"));
    } else {
        m_iconPreview->setPixmap(classPixmap(slug, m_catalog.classIcon(slug), 40));
        m_iconPreview->setToolTip({});
    }
}

QJsonObject ClassDialog::defaults() const {
    // Kept as they were: the defaults this dialog does not edit (idle timeout, worktree).
    QJsonObject d = existing().value(sk::Defaults).toObject();
    auto set = [&d](QLatin1String key, const QString &value) {
        if (value.isEmpty())
            d.remove(key);
        else
            d.insert(key, value);
    };
    set(k::Provider, m_provider->currentData().toString());
    set(k::Model, m_model->currentText().trimmed());
    set(sk::PermissionMode, m_permission->currentData().toString());
    return d;
}

QJsonObject ClassDialog::body() const {
    QJsonObject all{{k::Name_, m_name->text().trimmed()},
                    {sk::Description, m_description->text().trimmed()},
                    {sk::Instructions, m_instructions->toPlainText()},
                    {sk::Defaults, defaults()},
                    {sk::Skills, QJsonArray::fromStringList(checkedSkills())}};
    // New: what is set (the rest are the service's defaults). Else only what changed: a
    // built-in class takes some fields and not others.
    QJsonObject out = changedFrom(existing(), all);
    if (isNew())
        out.insert(sk::Slug, m_slug->text().trimmed());
    if (m_iconChange == IconChange::Set)
        out.insert(sk::Icon,
                   QJsonObject{{sk::MediaType, m_iconType},
                               {sk::DataBase64, QString::fromLatin1(m_iconData.toBase64())}});
    else if (m_iconChange == IconChange::Remove)
        out.insert(sk::Icon, QJsonValue::Null);
    return out;
}

// POST /api/classes -> 201 | PATCH /api/classes/:slug -> 200 (only what changed) | 409 | 422
void ClassDialog::accept() {
    const QString slug = m_slug->text().trimmed();
    if (slug.isEmpty()) {
        showError(errorLabel(), tr("Enter a slug."));
        m_slug->setFocus();
        return;
    }
    const QJsonObject b = body();
    if (!isNew() && b.isEmpty()) {
        QDialog::accept(); // nothing changed
        return;
    }
    send(m_catalog, ShapingKind::Classes, slug, b);
}

} // namespace flotilla::monitor::ui
