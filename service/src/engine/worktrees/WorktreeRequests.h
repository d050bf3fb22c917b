#pragma once
// The bodies of POST /api/agents/:id/review and /merge, checked at the edge (each
// refusal names the field), and the message a review becomes.

#include "base/Error.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

#include <functional>

namespace flotilla {

namespace reviewlimits {
inline constexpr int kMaxComments = 100;
inline constexpr int kMaxBodyChars = 4'000;
inline constexpr int kMaxMessageChars = 20'000;
inline constexpr int kMaxPathChars = 1'000;
inline constexpr int kContextLines = 2;         // quoted above and below the commented line
inline constexpr int kMaxQuotedLineChars = 300; // a longer line is cut in the quote
} // namespace reviewlimits

struct ReviewComment {
    QString path; // relative to the worktree (as the diff names it)
    int line = 0; // 1-based, in the file as it is now
    QString body;
};

struct ReviewRequest {
    QList<ReviewComment> comments;
    QString message; // said before the comments
};

struct MergeOptions {
    QString strategy; // merge | squash | rebase
    QString target;   // empty: the agent's baseRef
    QString message;
};

Result<ReviewRequest> parseReview(const QJsonObject &body);
Result<MergeOptions> parseMerge(const QJsonObject &body);
// A path a client may name inside a worktree: relative, no "..", no NUL. For ?path= too.
Status checkRelativePath(const QString &path, const QString &field);

// The numbered lines around `line` of `path`, or a note why there are none.
using LineContext = std::function<QStringList(const QString &path, int line)>;
// The agent's next message: what the reviewer said, then each comment with its file, line and the
// quoted lines around it.
QString composeReview(const ReviewRequest &review, const QString &branch,
                      const LineContext &context);
// Reads the lines around `line` from `root`/`path` (never outside `root`, symbolic links
// resolved): "  41 | text", the commented line marked with ">".
QStringList readLineContext(const QString &root, const QString &path, int line);

} // namespace flotilla
