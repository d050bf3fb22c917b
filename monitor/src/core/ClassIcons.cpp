#include "core/ClassIcons.h"

#include "client/RestCall.h"
#include "core/MonitorLog.h"

#include <QNetworkReply>
#include <QUrl>

namespace flotilla::monitor {

namespace {
// A finished GET of an icon: its bytes and type; empty for 404 (no icon) and failures.
ClassIcon readIcon(QNetworkReply *reply, const QString &slug) {
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status != 200) {
        if (status != 404)
            qCInfo(lcMonitor) << "class icon" << slug << "not loaded:" << status
                              << reply->errorString();
        return {};
    }
    ClassIcon icon;
    icon.data = reply->readAll().left(ClassIcons::kMaxBytes);
    icon.mediaType = reply->header(QNetworkRequest::ContentTypeHeader)
                         .toString()
                         .section(QLatin1Char(';'), 0, 0)
                         .trimmed();
    return icon;
}
} // namespace

ClassIcons::ClassIcons(client::ServiceClient &client, QObject *parent)
    : QObject(parent)
    , m_client(client) {
}

ClassIcon ClassIcons::icon(const QString &slug) {
    if (slug.isEmpty())
        return {};
    auto it = m_icons.find(slug);
    if (it != m_icons.end())
        return it->icon;
    const quint64 generation = ++m_generation;
    m_icons.insert(slug, Entry{{}, false, generation});
    // GET /api/classes/:slug/icon -> 200 bytes (Content-Type: the icon's) | 404 none
    QNetworkRequest request = client::detail::buildRequest(
        m_client.endpoint(), QStringLiteral("/api/classes/%1/icon")
                                 .arg(QString::fromLatin1(QUrl::toPercentEncoding(slug))));
    request.setRawHeader(QByteArrayLiteral("Accept"),
                         QByteArrayLiteral("image/png, image/svg+xml"));
    QNetworkReply *reply = m_nam.get(request);
    // An icon is small: a larger answer is not one (and is not read into memory).
    connect(reply, &QNetworkReply::downloadProgress, reply, [reply](qint64 received, qint64) {
        if (received > kMaxBytes)
            reply->abort();
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply, slug, generation] {
        reply->deleteLater();
        auto entry = m_icons.find(slug);
        if (entry == m_icons.end() || entry->generation != generation)
            return; // forgotten meanwhile
        entry->done = true;
        entry->icon = readIcon(reply, slug);
        Q_EMIT iconChanged(slug);
    });
    return {};
}

bool ClassIcons::fetched(const QString &slug) const {
    return m_icons.value(slug).done;
}

void ClassIcons::forget(const QString &slug) {
    if (m_icons.remove(slug) > 0)
        Q_EMIT iconChanged(slug);
}

void ClassIcons::clear() {
    const QStringList slugs = m_icons.keys();
    m_icons.clear();
    for (const QString &slug : slugs)
        Q_EMIT iconChanged(slug);
}

} // namespace flotilla::monitor
