#pragma once
// Create or edit a class: slug (fixed once created), name, description, instructions, the
// defaults an agent of the class starts with (provider, model, permission mode), its skills and
// its icon (a PNG or SVG file of at most 64 KiB, sent as {mediaType, dataBase64}). Editing sends
// only what changed. The dialog stays open until the service accepts, showing its refusal.

#include "ui/LibraryDialog.h"

#include <QJsonObject>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace flotilla::monitor::ui {

class ClassDialog final : public LibraryDialog {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClassDialog)
public:
    // `existing` empty: a new class (POST /api/classes); else that class (PATCH).
    ClassDialog(ShapingCatalog &catalog, const QJsonObject &existing, QWidget *parent = nullptr);

    // Reads an icon file; false (and the reason shown) when it is not a PNG or SVG of at most
    // 64 KiB.
    bool setIconFile(const QString &path);
    QJsonObject body() const; // what Save sends
    void accept() override;

private:
    void fillSkills();
    void showIconPreview();
    QJsonObject defaults() const;
    QStringList checkedSkills() const;

    ShapingCatalog &m_catalog;
    QLineEdit *m_slug;
    QLineEdit *m_name;
    QLineEdit *m_description;
    QPlainTextEdit *m_instructions;
    QComboBox *m_provider;
    QComboBox *m_model;
    QComboBox *m_permission;
    QListWidget *m_skills;
    QLabel *m_iconPreview;
    QPushButton *m_removeIcon;
    enum class IconChange { Keep, Set, Remove } m_iconChange = IconChange::Keep;
    QByteArray m_iconData;
    QString m_iconType;
};

} // namespace flotilla::monitor::ui
