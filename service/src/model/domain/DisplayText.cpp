#include "domain/DisplayText.h"

#include "protocol/WireNames.h"

namespace flotilla {

qsizetype firstForbiddenNameChar(const QString &text) {
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t u = text.at(i).unicode();
        if (u < 0x20 || (u >= 0x7f && u <= 0x9f))
            return i;
        if (QChar::isHighSurrogate(u)) {
            if (i + 1 < text.size() && QChar::isLowSurrogate(text.at(i + 1).unicode())) {
                ++i;
                continue;
            }
            return i;
        }
        if (QChar::isLowSurrogate(u))
            return i;
    }
    return -1;
}

Status validateNameText(QLatin1String field, const QString &text) {
    const qsizetype at = firstForbiddenNameChar(text);
    if (at < 0)
        return std::nullopt;
    return Error::invalid(
        wire::code::InvalidValue,
        QStringLiteral("field '%1' must not contain control characters or broken UTF-16; "
                       "found U+%2 at position %3")
            .arg(field)
            .arg(QString::number(text.at(at).unicode(), 16).toUpper().rightJustified(4, u'0'))
            .arg(at));
}

} // namespace flotilla
