#pragma once
// Class icons as the service serves them (GET /api/classes/:slug/icon: the bytes, with their
// Content-Type), fetched once per class and kept until the class changes or the session
// reconnects. Raw bytes, not JSON: ServiceClient's REST calls parse JSON, so the icon is read
// with a request built the same way (client/RestCall.h) on this object's own network manager.

#include "client/ServiceClient.h"

#include <QByteArray>
#include <QHash>
#include <QNetworkAccessManager>
#include <QObject>
#include <QString>

namespace flotilla::monitor {

struct ClassIcon {
    QByteArray data;   // empty: none (no icon, not fetched yet, or refused)
    QString mediaType; // image/png or image/svg+xml
    bool isPng() const { return mediaType == QLatin1String("image/png"); }
    bool isSvg() const { return mediaType == QLatin1String("image/svg+xml"); }
};

class ClassIcons final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ClassIcons)
public:
    explicit ClassIcons(client::ServiceClient &client, QObject *parent = nullptr);

    // The icon of class `slug`; the first call starts its fetch and answers empty, iconChanged
    // says when it arrived. Later calls answer from the cache and never fetch again.
    ClassIcon icon(const QString &slug);
    bool fetched(const QString &slug) const; // the fetch has answered (with or without an icon)
    void forget(const QString &slug);        // the class changed: the next icon() fetches again
    void clear();                            // another service, or a reconnect
    // What the cache holds at most per icon: the service refuses more than 64 KiB.
    static constexpr qint64 kMaxBytes = 64 * 1024;

Q_SIGNALS:
    void iconChanged(const QString &slug);

private:
    struct Entry {
        ClassIcon icon;
        bool done = false;
        quint64 generation = 0; // an answer for an older generation is dropped
    };
    client::ServiceClient &m_client;
    QNetworkAccessManager m_nam;
    QHash<QString, Entry> m_icons;
    quint64 m_generation = 0;
};

} // namespace flotilla::monitor
