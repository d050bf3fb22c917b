#include "base/Clock.h"

#include <QDateTime>

namespace flotilla {

Clock::Clock(Source source)
    : m_source(source ? std::move(source) : Source(&QDateTime::currentMSecsSinceEpoch)) {
}

} // namespace flotilla
