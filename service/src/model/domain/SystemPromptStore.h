#pragma once
// The global system prompt, persisted as system-prompt.json in the data dir (the spec names the
// file). Applied to every agent on its next message (by AgentRuntime).

#include "base/Clock.h"
#include "base/Error.h"

#include <QObject>
#include <QString>

namespace flotilla {

class StartupReport;

class SystemPromptStore final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(SystemPromptStore)
public:
    static constexpr int kFormatVersion = 1;
    static constexpr int kMaxChars = 100 * 1024;

    SystemPromptStore(QString path, Clock clock, QObject *parent = nullptr);

    // Reads the file; a damaged one is set aside and reported, and the prompt starts empty.
    void load(StartupReport &report);

    QString prompt() const { return m_prompt; }
    qint64 updatedAt() const { return m_updatedAt; }

    Status setPrompt(const QString &prompt);
    Status clear() { return setPrompt(QString()); }

Q_SIGNALS:
    void promptChanged(const QString &prompt);

private:
    QString m_path;
    Clock m_clock;
    QString m_prompt;
    qint64 m_updatedAt = 0;
};

} // namespace flotilla
