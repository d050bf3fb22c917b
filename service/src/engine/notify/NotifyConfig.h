#pragma once
// How outgoing notifications are retried (docs/api.md, "Notification channels"). The defaults are
// the product's; tests shorten them through ServerConfig::notify.

namespace flotilla {

struct NotifyConfig {
    // The wait after the first failed attempt; doubled after each further one, up to maxRetryMs.
    // Each wait is drawn uniformly from [d/2, d] (jitter), so receivers that come back are not
    // hit by every service at once.
    int firstRetryMs = 1000;
    int maxRetryMs = 15 * 60 * 1000;
    // After this many attempts an item is marked failed (kept, listed, no longer retried). With
    // the defaults: 30 attempts over about 2.5 to 5 hours.
    int maxAttempts = 30;
    // One attempt: no answer within this is a failure (the receiver may still have got it).
    int requestTimeoutMs = 10'000;
    // A channel's outbox: past this many pending items the oldest are marked failed ("outbox
    // full"); of the failed ones the newest keptFailed stay listed.
    int maxPendingPerChannel = 1000;
    int keptFailedPerChannel = 100;
};

} // namespace flotilla
