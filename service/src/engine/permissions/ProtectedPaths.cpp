#include "permissions/ProtectedPaths.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace flotilla {

namespace {

// Where a word ends for a shell (and for the tripwire): what cannot be part of a path argument.
bool isWordBreak(QChar ch) {
    return ch.isSpace() || QStringView(u";|&<>()`=,:{}[]").contains(ch);
}

// "/x/data" names /x/data and /x/data/secrets.json, not /x/database.
bool endsName(const QString &text, qsizetype at) {
    if (at >= text.size())
        return true;
    const QChar ch = text.at(at);
    return !(ch.isLetterOrNumber() || ch == QLatin1Char('.') || ch == QLatin1Char('_') ||
             ch == QLatin1Char('-'));
}

// Quotes and backslash escapes dropped: 'se'"crets" and se\crets are "secrets" to the shell.
QString unquoted(const QString &text) {
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar ch = text.at(i);
        if (ch == QLatin1Char('\'') || ch == QLatin1Char('"'))
            continue;
        if (ch == QLatin1Char('\\') && i + 1 < text.size()) {
            out += text.at(++i);
            continue;
        }
        out += ch;
    }
    return out;
}

// Every absolute path in the text cleaned: "//", "/./" and ".." resolved as the kernel would.
QString withCleanPaths(const QString &text) {
    QString out;
    out.reserve(text.size());
    qsizetype i = 0;
    while (i < text.size()) {
        if (text.at(i) != QLatin1Char('/')) {
            out += text.at(i++);
            continue;
        }
        qsizetype end = i;
        while (end < text.size() && !isWordBreak(text.at(end)))
            ++end;
        out += QDir::cleanPath(text.mid(i, end - i));
        i = end;
    }
    return out;
}

} // namespace

ProtectedPaths::ProtectedPaths(const QStringList &paths, const QString &home, qint64 servicePid)
    : m_home(QDir::cleanPath(home))
    , m_servicePid(servicePid) {
    for (const QString &raw : paths) {
        if (raw.isEmpty())
            continue;
        const QString path = QDir::cleanPath(QDir(raw).absolutePath());
        if (path == QLatin1String("/") || path == m_home)
            continue; // never the whole file system or home: agents work there
        m_paths.append(path);
    }
}

QString ProtectedPaths::normalized(const QString &text) const {
    QString s = unquoted(text);
    if (!m_home.isEmpty()) {
        s.replace(QLatin1String("${HOME}"), m_home);
        static const QRegularExpression homeVar(QStringLiteral("\\$HOME(?![A-Za-z0-9_])"));
        s.replace(homeVar, m_home);
        // ~ at the start of a word, alone or before a '/': the user's home.
        QString expanded;
        expanded.reserve(s.size());
        for (qsizetype i = 0; i < s.size(); ++i) {
            const bool wordStart = i == 0 || isWordBreak(s.at(i - 1));
            const bool tildeWord =
                s.at(i) == QLatin1Char('~') && wordStart &&
                (i + 1 == s.size() || s.at(i + 1) == QLatin1Char('/') || isWordBreak(s.at(i + 1)));
            if (tildeWord)
                expanded += m_home;
            else
                expanded += s.at(i);
        }
        s = expanded;
    }
    if (m_servicePid > 0) {
        // An agent's commands run under its CLI, whose parent is flotillad.
        static const QRegularExpression ppid(
            QStringLiteral("\\$\\{PPID\\}|\\$PPID(?![A-Za-z0-9_])"));
        s.replace(ppid, QString::number(m_servicePid));
    }
    return withCleanPaths(s);
}

QString ProtectedPaths::namedAsPath(const QString &text) const {
    for (const QString &path : m_paths) {
        for (qsizetype from = text.indexOf(path); from >= 0; from = text.indexOf(path, from + 1)) {
            if (endsName(text, from + path.size()))
                return path;
        }
    }
    if (m_servicePid > 0) {
        const QString proc = QStringLiteral("/proc/%1/").arg(m_servicePid);
        for (qsizetype from = text.indexOf(proc); from >= 0; from = text.indexOf(proc, from + 1)) {
            const qsizetype at = from + proc.size();
            for (const char *entry : {"environ", "cmdline", "mem"}) {
                const QLatin1String name(entry);
                if (QStringView(text).mid(at).startsWith(name) && endsName(text, at + name.size()))
                    return proc + name;
            }
        }
    }
    return {};
}

QString ProtectedPaths::namedInText(const QString &text) const {
    return namedAsPath(normalized(text));
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
