#pragma once
// gzip (RFC 1952) from Qt's zlib: qCompress gives a zlib stream (RFC 1950) behind a 4-byte length;
// its raw deflate data gets gzip's header and trailer (CRC-32, length) instead. Used once per
// asset at start, never per request.

#include <QByteArray>

namespace flotilla::web {

// CRC-32 (ISO 3309, the one gzip and zip use) of `data`.
quint32 crc32(const QByteArray &data);
// `data` as a gzip member, deflated at `level` (1-9).
QByteArray gzip(const QByteArray &data, int level = 9);

} // namespace flotilla::web
