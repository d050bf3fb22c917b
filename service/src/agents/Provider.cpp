#include "agents/Provider.h"

#include <algorithm>

namespace flotilla {

void ProviderRegistry::add(std::unique_ptr<Provider> provider) {
    Q_ASSERT(provider && !find(provider->name()));
    m_providers.push_back(std::move(provider));
}

const Provider *ProviderRegistry::find(const QString &name) const {
    const auto it = std::find_if(m_providers.cbegin(), m_providers.cend(),
                                 [&name](const auto &p) { return p->name() == name; });
    return it == m_providers.cend() ? nullptr : it->get();
}

} // namespace flotilla
