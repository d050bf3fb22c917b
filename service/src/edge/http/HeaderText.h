#pragma once
// Small helpers over header values as views into the request head (no allocation).

#include <QByteArrayView>
#include <QtCore/qbytearrayalgorithms.h>

namespace flotilla {

// Without the optional whitespace (SP, HTAB) around a field value (RFC 9110 §5.5).
inline QByteArrayView trimmedView(QByteArrayView v) {
    while (!v.isEmpty() && (v.front() == ' ' || v.front() == '\t'))
        v = v.sliced(1);
    while (!v.isEmpty() && (v.back() == ' ' || v.back() == '\t'))
        v.chop(1);
    return v;
}

// ASCII case-insensitive equality (header names, media types, schemes, host names).
inline bool equalsIgnoringCase(QByteArrayView a, QByteArrayView b) {
    return a.size() == b.size() && qstrnicmp(a.data(), a.size(), b.data(), b.size()) == 0;
}

} // namespace flotilla
