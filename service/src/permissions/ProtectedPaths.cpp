#include "permissions/ProtectedPaths.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>

namespace flotilla {

ProtectedPaths::ProtectedPaths(const QStringList &paths, const QString &home) {
    const QString cleanHome = QDir::cleanPath(home);
    for (const QString &raw : paths) {
        if (raw.isEmpty())
            continue;
        const QString path = QDir::cleanPath(QDir(raw).absolutePath());
        if (path == QLatin1String("/") || path == cleanHome)
            continue; // never the whole file system or home: agents work there
        m_spellings.append({path, path});
        if (!cleanHome.isEmpty() && path.startsWith(cleanHome + QLatin1Char('/'))) {
            const QString rest = path.mid(cleanHome.size());
            for (const char *prefix : {"~", "$HOME", "${HOME}"})
                m_spellings.append({QLatin1String(prefix) + rest, path});
        }
    }
}

QString ProtectedPaths::namedInText(const QString &text) const {
    // "/x/data" names /x/data and /x/data/secrets.json, not /x/database.
    auto endsName = [&text](qsizetype at) {
        if (at >= text.size())
            return true;
        const QChar ch = text.at(at);
        return !(ch.isLetterOrNumber() || ch == QLatin1Char('.') || ch == QLatin1Char('_') ||
                 ch == QLatin1Char('-'));
    };
    for (const auto &s : m_spellings) {
        for (qsizetype from = text.indexOf(s.first); from >= 0;
             from = text.indexOf(s.first, from + 1)) {
            if (endsName(from + s.first.size()))
                return s.second;
        }
    }
    return {};
}

QString ProtectedPaths::namedIn(const QJsonValue &toolInput) const {
    if (toolInput.isString())
        return namedInText(toolInput.toString());
    if (toolInput.isArray()) {
        for (const QJsonValue &v : toolInput.toArray()) {
            QString hit = namedIn(v);
            if (!hit.isEmpty())
                return hit;
        }
    }
    if (toolInput.isObject()) {
        const QJsonObject o = toolInput.toObject();
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            QString hit = namedIn(it.value());
            if (!hit.isEmpty())
                return hit;
        }
    }
    return {};
}

} // namespace flotilla
