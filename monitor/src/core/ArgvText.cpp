#include "core/ArgvText.h"

namespace flotilla::monitor {

namespace {
bool isBlank(QChar c) {
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\n') ||
           c == QLatin1Char('\r');
}

bool needsQuotes(const QString &word) {
    if (word.isEmpty())
        return true;
    for (const QChar c : word) {
        if (isBlank(c) || c == QLatin1Char('\'') || c == QLatin1Char('"') ||
            c == QLatin1Char('\\') || c == QLatin1Char('$') || c == QLatin1Char('`'))
            return true;
    }
    return false;
}
} // namespace

std::optional<QStringList> splitCommandLine(const QString &line) {
    QStringList words;
    QString word;
    bool inWord = false; // '' and "" make a word even when empty
    enum class Quote { None, Single, Double } quote = Quote::None;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line.at(i);
        switch (quote) {
        case Quote::Single:
            if (c == QLatin1Char('\''))
                quote = Quote::None;
            else
                word += c;
            break;
        case Quote::Double:
            if (c == QLatin1Char('"')) {
                quote = Quote::None;
            } else if (c == QLatin1Char('\\') && i + 1 < line.size() &&
                       QStringLiteral("\"\\$`").contains(line.at(i + 1))) {
                word += line.at(++i);
            } else {
                word += c;
            }
            break;
        case Quote::None:
            if (isBlank(c)) {
                if (inWord)
                    words << word;
                word.clear();
                inWord = false;
            } else if (c == QLatin1Char('\'')) {
                quote = Quote::Single;
                inWord = true;
            } else if (c == QLatin1Char('"')) {
                quote = Quote::Double;
                inWord = true;
            } else if (c == QLatin1Char('\\')) {
                if (i + 1 >= line.size())
                    return std::nullopt;
                word += line.at(++i);
                inWord = true;
            } else {
                word += c;
                inWord = true;
            }
            break;
        }
    }
    if (quote != Quote::None)
        return std::nullopt;
    if (inWord)
        words << word;
    return words;
}

QString joinCommandLine(const QStringList &argv) {
    QStringList out;
    for (const QString &word : argv) {
        if (!needsQuotes(word)) {
            out << word;
            continue;
        }
        QString quoted = word;
        quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
        out << QLatin1Char('\'') + quoted + QLatin1Char('\'');
    }
    return out.join(QLatin1Char(' '));
}

QStringList splitArgumentLines(const QString &text) {
    QStringList out;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        QString arg = line;
        if (arg.endsWith(QLatin1Char('\r')))
            arg.chop(1);
        if (!arg.trimmed().isEmpty())
            out << arg;
    }
    return out;
}

} // namespace flotilla::monitor
