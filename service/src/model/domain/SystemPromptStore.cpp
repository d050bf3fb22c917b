#include "domain/SystemPromptStore.h"

#include "base/Logging.h"
#include "protocol/WireNames.h"
#include "storage/FileSafety.h"
#include "storage/StartupReport.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

namespace flotilla {

namespace k = wire::key;

SystemPromptStore::SystemPromptStore(QString path, Clock clock, QObject *parent)
    : QObject(parent)
    , m_path(std::move(path))
    , m_clock(std::move(clock)) {
}

void SystemPromptStore::load(StartupReport &report) {
    QFile file(m_path);
    if (!file.exists())
        return;
    QString problem;
    if (!file.open(QIODevice::ReadOnly)) {
        problem = file.errorString();
    } else {
        QJsonParseError err{};
        const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &err);
        file.close();
        const QJsonObject o = doc.object();
        if (err.error != QJsonParseError::NoError)
            problem = err.errorString();
        else if (!doc.isObject() || !o.value(k::Prompt).isString())
            problem = QStringLiteral("no string field 'prompt'");
        else if (o.value(k::Version).toInt(1) > kFormatVersion)
            problem = QStringLiteral("format version %1 is newer than this flotillad")
                          .arg(o.value(k::Version).toInt());
        else {
            m_prompt = o.value(k::Prompt).toString();
            m_updatedAt = o.value(k::UpdatedAt).toInteger();
            return;
        }
    }
    const QString aside = setAside(m_path);
    const QString warning =
        QStringLiteral("%1 was unreadable (%2); it was moved to %3 and the "
                       "system prompt starts empty")
            .arg(QFileInfo(m_path).fileName(), problem, QFileInfo(aside).fileName());
    qCCritical(lcStorage).noquote() << warning;
    report.addWarning(warning);
}

Status SystemPromptStore::setPrompt(const QString &prompt) {
    const qint64 now = m_clock.nowMs();
    const QJsonObject doc{{k::Version, kFormatVersion}, {k::Prompt, prompt}, {k::UpdatedAt, now}};
    if (Status e = writeJsonAtomically(m_path, doc))
        return e;
    const bool changed = prompt != m_prompt;
    m_prompt = prompt;
    m_updatedAt = now;
    if (changed)
        Q_EMIT promptChanged(m_prompt);
    return std::nullopt;
}

} // namespace flotilla
