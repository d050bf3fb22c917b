#include "shaping/SkillMaterializer.h"

#include "shaping/ShapingLogging.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace flotilla {

namespace {
// A YAML double-quoted scalar: JSON's string escapes are a subset of YAML's, so a JSON string is
// read back unchanged by both CLIs' YAML parsers, whatever the text holds (colons, quotes, '#').
QByteArray yamlString(const QString &text) {
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

bool writeFile(const QString &path, const QByteArray &bytes) {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return false;
    file.write(bytes);
    return file.commit();
}
} // namespace

SkillMaterializer::SkillMaterializer(QString root)
    : m_root(std::move(root)) {
}

SkillMaterializer::~SkillMaterializer() = default;

QByteArray SkillMaterializer::skillFile(const Skill &skill) {
    QByteArray out = "---\nname: " + yamlString(skill.name) +
                     "\ndescription: " + yamlString(skill.description) + '\n';
    if (skill.allowedTools && !skill.allowedTools->isEmpty())
        out +=
            "allowed-tools: " + yamlString(skill.allowedTools->join(QStringLiteral(", "))) + '\n';
    out += "---\n";
    out += skill.content.toUtf8();
    if (!out.endsWith('\n'))
        out += '\n';
    return out;
}

SkillMaterializer::Written SkillMaterializer::write(const QString &agentId,
                                                    const QStringList &stamps,
                                                    const std::function<QList<Skill>()> &load) {
    const QString dir = m_root + QLatin1Char('/') + agentId;
    if (stamps.isEmpty()) {
        if (m_written.remove(agentId) > 0 || QFileInfo::exists(dir))
            QDir(dir).removeRecursively();
        return {};
    }
    const QString fingerprint =
        QString::fromLatin1(QCryptographicHash::hash(stamps.join(QLatin1Char('\n')).toUtf8(),
                                                     QCryptographicHash::Sha256)
                                .toHex()
                                .left(16));
    if (m_written.value(agentId) == fingerprint && QFileInfo::exists(dir))
        return {dir, fingerprint};
    const QList<Skill> skills = load();

    // Built beside the live one, then swapped in with renames.
    const QString fresh = dir + QStringLiteral(".new");
    QDir(fresh).removeRecursively();
    bool ok = QDir().mkpath(fresh + QStringLiteral("/.claude-plugin"));
    const QJsonObject manifest{
        {QStringLiteral("name"), QStringLiteral("flotilla")},
        {QStringLiteral("version"), QStringLiteral("1.0.0")},
        {QStringLiteral("description"), QStringLiteral("The skills Flotilla gives this agent")}};
    ok = ok && writeFile(fresh + QStringLiteral("/.claude-plugin/plugin.json"),
                         QJsonDocument(manifest).toJson());
    for (const Skill &skill : skills) {
        const QString skillDir = fresh + QStringLiteral("/skills/") + skill.slug;
        ok = ok && QDir().mkpath(skillDir) &&
             writeFile(skillDir + QStringLiteral("/SKILL.md"), skillFile(skill));
    }
    const QString old = dir + QStringLiteral(".old");
    QDir(old).removeRecursively();
    if (ok && QFileInfo::exists(dir))
        ok = QDir().rename(dir, old);
    ok = ok && QDir().rename(fresh, dir);
    QDir(old).removeRecursively();
    if (!ok) {
        qCWarning(lcShaping).noquote()
            << "cannot write the skills of agent" << agentId << "under" << m_root;
        QDir(fresh).removeRecursively();
        return {};
    }
    m_written.insert(agentId, fingerprint);
    qCDebug(lcShaping).noquote() << "wrote" << skills.size() << "skill(s) for agent" << agentId;
    return {dir, fingerprint};
}

QString SkillMaterializer::writeInstructions(const QString &agentId, const QString &text) {
    QString path = m_root + QLatin1Char('/') + agentId + QStringLiteral(".instructions.md");
    const QByteArray bytes = text.toUtf8();
    if (bytes.size() <= kArgMaxBytes) {
        QFile::remove(path);
        return {};
    }
    if (!QDir().mkpath(m_root) || !writeFile(path, bytes)) {
        qCWarning(lcShaping).noquote() << "cannot write the instructions of agent" << agentId;
        return {};
    }
    return path;
}

void SkillMaterializer::forget(const QString &agentId) {
    m_written.remove(agentId);
    QFile::remove(m_root + QLatin1Char('/') + agentId + QStringLiteral(".instructions.md"));
    QDir(m_root + QLatin1Char('/') + agentId).removeRecursively();
}

} // namespace flotilla
