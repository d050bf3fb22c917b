#include "ui/BuildingDialog.h"

#include "core/ArgvText.h"
#include "core/MonitorSession.h"
#include "protocol/ShapingNames.h"
#include "protocol/WireNames.h"
#include "ui/LibraryCommon.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QJsonArray>
#include <QLineEdit>
#include <QPlainTextEdit>

namespace flotilla::monitor::ui {

namespace k = ::flotilla::wire::key;
namespace sk = ::flotilla::wire::shaping::key;
namespace rs = ::flotilla::wire::shaping::restart;

BuildingDialog::BuildingDialog(MonitorSession &session, const QJsonObject &existing,
                               QWidget *parent)
    : LibraryDialog(existing, QStringLiteral("buildingDialogError"), parent)
    , m_session(session)
    , m_name(new QLineEdit(this))
    , m_cwd(new QLineEdit(this))
    , m_command(new QLineEdit(this))
    , m_env(new QPlainTextEdit(this))
    , m_autostart(new QCheckBox(tr("Start with the &service"), this))
    , m_restart(new QComboBox(this))
    , m_url(new QLineEdit(this))
    , m_agent(new QComboBox(this)) {
    setObjectName(QStringLiteral("buildingDialog"));
    setWindowTitle(existing.isEmpty() ? tr("New building")
                                      : tr("Building %1").arg(existing.value(k::Name_).toString()));
    m_name->setObjectName(QStringLiteral("buildingName"));
    m_cwd->setObjectName(QStringLiteral("buildingCwd"));
    m_command->setObjectName(QStringLiteral("buildingCommandEdit"));
    m_command->setPlaceholderText(tr("npm run dev -- --port 5173"));
    m_env->setObjectName(QStringLiteral("buildingEnv"));
    m_env->setPlaceholderText(tr("KEY=value, one a line"));
    m_env->setMaximumHeight(m_env->fontMetrics().height() * 4 + 12);
    m_restart->setObjectName(QStringLiteral("buildingRestartPolicy"));
    m_restart->addItem(tr("never"), QString(rs::No));
    m_restart->addItem(tr("when it fails"), QString(rs::OnFailure));
    m_restart->addItem(tr("always"), QString(rs::Always));
    m_url->setObjectName(QStringLiteral("buildingUrlEdit"));
    m_url->setPlaceholderText(QStringLiteral("http://localhost:5173"));
    m_agent->setObjectName(QStringLiteral("buildingAgent"));
    m_agent->addItem(tr("(none: runs in the directory above)"), QString());
    addAgentItems(m_agent, session.agents());

    if (!existing.isEmpty()) {
        m_name->setText(existing.value(k::Name_).toString());
        m_cwd->setText(existing.value(k::Cwd).toString());
        m_command->setText(joinCommandLine(existing.value(sk::Command).toVariant().toStringList()));
        QStringList env;
        const QJsonObject e = existing.value(sk::Env).toObject();
        for (auto it = e.begin(); it != e.end(); ++it)
            env << it.key() + QLatin1Char('=') + it.value().toString();
        m_env->setPlainText(env.join(QLatin1Char('\n')));
        m_autostart->setChecked(existing.value(sk::Autostart).toBool());
        selectData(m_restart, existing.value(sk::Restart).toString());
        m_url->setText(existing.value(sk::Url).toString());
        selectData(m_agent, existing.value(k::AgentId).toString());
    }

    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Directory:"), m_cwd);
    form->addRow(tr("&Command:"), m_command);
    form->addRow(tr("&Environment:"), m_env);
    form->addRow(QString(), m_autostart);
    form->addRow(tr("&Restart:"), m_restart);
    form->addRow(tr("&URL:"), m_url);
    form->addRow(tr("In the &worktree of:"), m_agent);
    layOut(form, QStringLiteral("buildingSave"));
    resize(520, sizeHint().height());
}

// POST /api/buildings -> 201 | PATCH /api/buildings/:id -> 200 | 422
void BuildingDialog::accept() {
    const std::optional<QStringList> argv = splitCommandLine(m_command->text());
    if (!argv || argv->isEmpty()) {
        showError(errorLabel(),
                  argv ? tr("Enter a command.") : tr("Unbalanced quotes in the command."));
        return;
    }
    QJsonObject env;
    for (const QString &line : m_env->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq <= 0) {
            showError(errorLabel(), tr("Not KEY=value: %1").arg(line));
            return;
        }
        env.insert(line.left(eq).trimmed(), line.mid(eq + 1));
    }
    const QString url = m_url->text().trimmed();
    const QString agentId = m_agent->currentData().toString();
    QJsonObject body{
        {k::Name_, m_name->text().trimmed()},
        {k::Cwd, m_cwd->text().trimmed()},
        {sk::Command, QJsonArray::fromStringList(*argv)},
        {sk::Env, env},
        {sk::Autostart, m_autostart->isChecked()},
        {sk::Restart, m_restart->currentData().toString()},
        {sk::Url, url.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(url)},
        {k::AgentId, agentId.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(agentId)}};
    if (isNew()) {
        // A new building: what is not set is left out (the service's defaults).
        for (auto it = body.begin(); it != body.end();) {
            if (it.value().isNull() || (it.value().isObject() && it.value().toObject().isEmpty()))
                it = body.erase(it);
            else
                ++it;
        }
    } else {
        body = changedFrom(existing(), body);
    }
    send(m_session.shaping(), ShapingKind::Buildings, existing().value(k::Id).toString(), body);
}

} // namespace flotilla::monitor::ui
