#include "web/Gzip.h"

#include <array>

namespace flotilla::web {

namespace {

std::array<quint32, 256> makeCrcTable() {
    std::array<quint32, 256> table{};
    for (quint32 n = 0; n < 256; ++n) {
        quint32 c = n;
        for (int k = 0; k < 8; ++k)
            c = (c & 1U) ? 0xEDB88320U ^ (c >> 1) : c >> 1;
        table[n] = c;
    }
    return table;
}

void appendLittleEndian(QByteArray &out, quint32 v) {
    for (int i = 0; i < 4; ++i)
        out.append(char((v >> (8 * i)) & 0xFFU));
}

} // namespace

quint32 crc32(const QByteArray &data) {
    static const std::array<quint32, 256> table = makeCrcTable();
    quint32 c = 0xFFFFFFFFU;
    for (char ch : data)
        c = table[(c ^ quint32(quint8(ch))) & 0xFFU] ^ (c >> 8);
    return c ^ 0xFFFFFFFFU;
}

QByteArray gzip(const QByteArray &data, int level) {
    // qCompress: 4-byte big-endian length, then zlib: 2-byte header (no preset dictionary),
    // deflate data, 4-byte Adler-32.
    const QByteArray zlib = qCompress(data, level);
    constexpr qsizetype kPrefix = 4 + 2;
    constexpr qsizetype kAdler = 4;
    if (!data.isEmpty() && zlib.size() < kPrefix + kAdler)
        return {};
    QByteArray out;
    out.reserve(zlib.size() + 18);
    // ID1 ID2, CM=deflate, FLG=0, MTIME=0 (reproducible), XFL (2: best compression), OS=3 (Unix).
    const char header[10] = {'\x1f', '\x8b', '\x08', 0, 0, 0, 0, 0, level >= 9 ? '\x02' : '\x00',
                             '\x03'};
    out.append(header, sizeof header);
    if (data.isEmpty())
        out.append("\x03\x00", 2); // qCompress has no stream for nothing: an empty final block
    else
        out.append(zlib.constData() + kPrefix, zlib.size() - kPrefix - kAdler);
    appendLittleEndian(out, crc32(data));
    appendLittleEndian(out, quint32(quint64(data.size()) & 0xFFFFFFFFU));
    return out;
}

} // namespace flotilla::web
