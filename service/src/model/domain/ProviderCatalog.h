#pragma once
// What agent validation needs to know about the agent CLIs this service runs: their names, the
// one an agent gets when its request names none, and each one's default model. The engine's
// ProviderRegistry (agents/Provider.h) answers from the registered providers; this floor only
// sees the interface, so adding a provider changes nothing here.

#include <QString>
#include <QStringList>

namespace flotilla {

class ProviderCatalog {
public:
    virtual ~ProviderCatalog() = default;

    // The wire names agents may use as `provider`, in registration order ("claude", "codex").
    virtual QStringList providerNames() const = 0;
    // The provider of an agent created without one; empty when none is registered.
    virtual QString defaultProvider() const = 0;
    // The model of an agent of `provider` created without one; empty for an unknown provider.
    virtual QString defaultModel(const QString &provider) const = 0;
};

} // namespace flotilla
