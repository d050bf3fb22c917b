#pragma once
// The hosts a user defines (docs/api.md "Hosts"): {name, ssh, claudeBin?, codexBin?, maxAgents?},
// kept in the catalog table (kind "hosts") and validated here. "local", the machine flotillad
// runs on, is implicit: never stored, never created, changed or deleted.

#include "base/Error.h"

#include <QJsonObject>
#include <QObject>

#include <memory>
#include <optional>

namespace flotilla {

class CatalogStore;
class Database;

struct HostConfig {
    QString name;
    QString ssh;         // user@host[:port] or an alias of the ssh config
    QString destination; // what ssh is given: ssh without the port
    int port = 0;        // 0: ssh's own (the config's, or 22)
    QString claudeBin;   // empty: `claude` on that host's PATH
    QString codexBin;    // empty: `codex` on that host's PATH
    int maxAgents = 0;   // 0: no limit

    static HostConfig fromJson(const QJsonObject &o);
    QJsonObject toJson() const;
    // The CLI of `provider` there (claudeBin/codexBin, else the provider's name).
    QString program(const QString &provider) const;
};

class HostCatalog final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(HostCatalog)
public:
    static constexpr int kMaxHosts = 64;

    HostCatalog(Database &db, QObject *parent = nullptr);
    ~HostCatalog() override;

    Status load();
    QList<HostConfig> hosts() const;
    std::optional<HostConfig> find(const QString &name) const;

    // POST: 400 (types), 409 (name taken), 422 (unknown field, bad value).
    Result<HostConfig> create(const QJsonObject &body);
    // PATCH: ssh, claudeBin, codexBin, maxAgents; 404, 400, 422.
    Result<HostConfig> patch(const QString &name, const QJsonObject &body);
    Status remove(const QString &name);

Q_SIGNALS:
    void hostStored(const HostConfig &host, bool created);
    void hostRemoved(const QString &name);

private:
    std::unique_ptr<CatalogStore> m_store;
};

} // namespace flotilla
